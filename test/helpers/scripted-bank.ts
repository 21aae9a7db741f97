// A bank that does what the test says, added to a running process's banks exactly as a real bank's
// connector is: the outside world of the payer's cycle, of mandates and debits, and of the
// authorization flow, and nothing of Quipu's own replaced.
import type { BankDirectory } from '../../src/bank/bank-directory.js';
import type {
  BankConnector,
  CreditReport,
  DebitOrder,
  DebitResult,
  LoginResult,
  MandateBank,
  MandateNews,
  MandateNewsReport,
  MandateOrder,
  MandateResult,
  PayerCredentials,
  TransferOrder,
  TransferResult,
} from '../../src/bank/connector.js';
import type { BankCredit } from '../../src/domain/bank-credit.js';

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
  /** Present when the test asked for a bank that offers direct debits. */
  readonly mandates?: ScriptedMandates;
  readonly #unregister: () => void;

  /** `standIn`: the scripted bank takes the place of the process's own connector of `bankId`. */
  constructor(
    banks: BankDirectory,
    readonly bankId: string,
    options: { mandates?: boolean; standIn?: boolean } = {},
  ) {
    if (options.mandates) this.mandates = new ScriptedMandates();
    this.#unregister = options.standIn ? banks.standIn(this) : banks.add(this);
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

/** Direct debits at a scripted bank: mandates and debits answered as the test says, every order kept. */
export class ScriptedMandates implements MandateBank {
  /** What the bank answers when a payer signs a mandate. */
  onSign: (order: MandateOrder, answers: readonly string[]) => Promise<MandateResult> = async () => ({ status: 'active' });
  /** Changes of mandates the bank reports, oldest first; a cursor is how many were reported. */
  readonly news: MandateNews[] = [];
  /** What the bank answers when a debit is submitted. */
  onDebit: (order: DebitOrder) => Promise<DebitResult> = async (order) => {
    throw new Error(`no debit scripted for ${order.orderId}`);
  };
  /** What the bank says when asked about a debit. */
  onDebitStatus: (order: DebitOrder) => Promise<DebitResult> = async () => ({ status: 'unknown' });
  readonly debitsSubmitted: DebitOrder[] = [];
  readonly debitsAsked: DebitOrder[] = [];

  signMandate(order: MandateOrder, answers: readonly string[]): Promise<MandateResult> {
    return this.onSign(order, answers);
  }

  async mandateNews(cursor: string | null): Promise<MandateNewsReport> {
    return { news: this.news.slice(cursor === null ? 0 : Number(cursor)), cursor: String(this.news.length) };
  }

  submitDebits(orders: readonly DebitOrder[]): Promise<DebitResult[]> {
    this.debitsSubmitted.push(...orders);
    return Promise.all(orders.map((order) => this.onDebit(order)));
  }

  debitStatuses(orders: readonly DebitOrder[]): Promise<DebitResult[]> {
    this.debitsAsked.push(...orders);
    return Promise.all(orders.map((order) => this.onDebitStatus(order)));
  }
}
