// What Quipu needs from a payer's bank: check the payer's credentials, transfer to a collection
// account, and report the credit that transfer produced. The simulated DemoBank is the first
// connector; a real bank's adapter implements the same interface and the payment rules stay as
// they are (attempts, the transition table and reconciliation live outside the connector).
import type { BankCredit } from '../domain/bank-credit.js';

export interface PayerCredentials {
  /** The payer's login: a RUT in Chile. */
  identifier: string;
  password: string;
}

export interface PayerAccount {
  /** The payer's personal identifier as the bank writes it (e.g. "11.111.111-1"). */
  personalIdentifier: string;
  accountNumber: string;
  holderName: string;
}

export type LoginResult = { ok: true; account: PayerAccount } | { ok: false; error: 'invalid-identifier' | 'wrong-credentials' };

/**
 * What a connector throws when the bank answers, in its own terms, that it cannot do what was asked:
 * `transient` when the same request may work at once (a controlled error), `unavailable` when the
 * bank is down or refuses this kind of access for now. Anything else a connector throws is a failed
 * operation with the bank.
 */
export class BankRefusal extends Error {
  constructor(
    readonly reason: 'transient' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'BankRefusal';
  }
}

export interface TransferOrder {
  /** Unique per order: the attempt id. */
  orderId: string;
  /** The reference written into the transfer, which reconciliation matches: the payment id. */
  reference: string;
  /** The collection account credited. */
  account: string;
  amount: number;
  currency: string;
  payer: PayerAccount;
  payerEmail: string;
}

export type TransferResult =
  /** The money moved; `credit` is the movement the bank reports on the collection account. */
  | { status: 'executed'; credit: BankCredit }
  | { status: 'failed'; message: string }
  /** The bank did not say; it will settle the transfer later. */
  | { status: 'uncertain' };

export interface BankConnector {
  readonly bankId: string;
  /** Labels of the values the bank asks for to authorise a transfer (e.g. coordinates of a card). */
  readonly challenge: readonly string[];
  login(credentials: PayerCredentials): Promise<LoginResult>;
  /** Whether answers have the form the challenge asks for: a typo is asked again, not a failed transfer. */
  acceptsAnswers(answers: readonly string[]): boolean;
  transfer(order: TransferOrder, answers: readonly string[], now: Date): Promise<TransferResult>;
  /** The bank settles a transfer it had left uncertain. */
  settle(order: TransferOrder, outcome: 'confirm' | 'fail', now: Date): Promise<TransferResult>;
}
