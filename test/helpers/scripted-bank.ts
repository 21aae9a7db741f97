// An institution whose sign-in does what the test says, registered in the bank registry exactly as
// a real bank's adapter is: the outside world of the authorization flow, and nothing of Quipu's
// own replaced.
import type { BankConnector, LoginResult, PayerCredentials, TransferResult } from '../../src/bank/connector.js';
import { registerConnector } from '../../src/bank/registry.js';

export type SignInBehaviour = (credentials: PayerCredentials) => Promise<LoginResult>;

export class ScriptedBank implements BankConnector {
  readonly challenge: readonly string[] = [];
  /** What the next sign-ins do; a test sets it before driving the flow. */
  signIn: SignInBehaviour = async () => ({ ok: false, error: 'wrong-credentials' });
  readonly #unregister: () => void;

  constructor(readonly bankId: string) {
    this.#unregister = registerConnector(this);
  }

  login(credentials: PayerCredentials): Promise<LoginResult> {
    return this.signIn(credentials);
  }

  acceptsAnswers(): boolean {
    return false;
  }

  async transfer(): Promise<TransferResult> {
    throw new Error(`${this.bankId} is scripted for sign-ins only`);
  }

  async settle(): Promise<TransferResult> {
    throw new Error(`${this.bankId} is scripted for sign-ins only`);
  }

  unregister(): void {
    this.#unregister();
  }
}
