// A bank that does what the test says, registered in the bank registry exactly as a real bank's
// adapter is: the outside world of the payer's cycle and of the authorization flow, and nothing of
// Quipu's own replaced.
import type { BankCredit } from '../../src/domain/bank-credit.js';
import type { BankConnector, CreditReport, LoginResult, PayerCredentials, TransferOrder, TransferResult } from '../../src/bank/connector.js';
import { registerConnector } from '../../src/bank/registry.js';

export type SignInBehaviour = (credentials: PayerCredentials) => Promise<LoginResult>;
export type TransferBehaviour = (order: TransferOrder) => Promise<TransferResult>;

/** Signs any payer in, as holder of a fixed account. */
export const ANY_PAYER: SignInBehaviour = async (credentials) => ({
  ok: true,
  account: { personalIdentifier: credentials.identifier, accountNumber: '000123456789', holderName: 'Cliente Scripted' },
});

export class ScriptedBank implements BankConnector {
  readonly challenge: readonly string[] = ['A1', 'B2', 'C3'];
  /** What the next sign-ins do; a test sets it before driving the flow. */
  signIn: SignInBehaviour = async () => ({ ok: false, error: 'wrong-credentials' });
  /** What the bank answers when a transfer is authorised. */
  onTransfer: TransferBehaviour = async () => {
    throw new Error(`${this.bankId} has no transfer scripted`);
  };
  /** What the bank says when asked later what became of a transfer. */
  onStatus: TransferBehaviour = async () => ({ status: 'uncertain' });
  /** The credits the bank booked on the collection account, oldest first; a cursor is how many were reported. */
  readonly booked: BankCredit[] = [];
  /** The cursors Quipu asked for credits with, in order. */
  readonly cursorsAsked: (string | null)[] = [];
  readonly ordersAsked: TransferOrder[] = [];
  readonly #unregister: () => void;

  constructor(readonly bankId: string) {
    this.#unregister = registerConnector(this);
  }

  login(credentials: PayerCredentials): Promise<LoginResult> {
    return this.signIn(credentials);
  }

  acceptsAnswers(answers: readonly string[]): boolean {
    return answers.length === this.challenge.length && answers.every((a) => a !== '');
  }

  transfer(order: TransferOrder): Promise<TransferResult> {
    return this.onTransfer(order);
  }

  transferStatus(order: TransferOrder): Promise<TransferResult> {
    this.ordersAsked.push(order);
    return this.onStatus(order);
  }

  async credits(cursor: string | null): Promise<CreditReport> {
    this.cursorsAsked.push(cursor);
    const from = cursor === null ? 0 : Number(cursor);
    return { credits: this.booked.slice(from), cursor: String(this.booked.length) };
  }

  unregister(): void {
    this.#unregister();
  }
}
