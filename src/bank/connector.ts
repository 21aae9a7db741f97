// What Quipu needs from a bank: check the payer's credentials, transfer to the collection account,
// say later what became of a transfer it left uncertain, and report the credits it booked on the
// collection account. The simulated DemoBank is the first connector; a real bank's adapter
// implements the same interface and the payment rules stay as they are (attempts, the transition
// table and reconciliation live outside the connector; housekeeping asks the banks,
// src/app/resolve-transfers.ts and src/app/collect-bank-credits.ts).
import type { BankCredit } from '../domain/bank-credit.js';
import type { CollectionAccount } from '../domain/collection-account.js';
import type { ScanTime } from '../domain/scan-time.js';

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
  /**
   * Quipu's name of the collection account credited (collect_account_uuid); null when the money goes
   * to an account Quipu does not collect on (an operation descriptor's target), whose credits the
   * bank never reports to Quipu.
   */
  account: string | null;
  /** The bank account the money goes to. */
  destination: CollectionAccount | TargetAccount;
  amount: number;
  currency: string;
  payer: PayerAccount;
  payerEmail: string;
}

/** An account of the merchant's own, as an operation descriptor names it. */
export interface TargetAccount {
  number: string;
  holderName: string | null;
  holderIdentifier: string | null;
  /** The bank's name as the origin bank shows it. */
  bankName: string | null;
}

export type TransferResult =
  /** The money moved; `credit` is the movement the bank reports on the collection account. */
  | { status: 'executed'; credit: BankCredit }
  /** The bank surely did not transfer; `message` is the bank's own words. */
  | { status: 'failed'; message: string }
  /** The bank did not say (yet); asked again later. */
  | { status: 'uncertain' };

/** What Quipu tells a connector on every call. */
export interface BankCall {
  /** Quipu's clock for the account the call is about (in developer mode it can be moved): a simulated bank keeps its books on it. */
  now: Date;
  /** The account the call is about, if one: a simulated bank dates that account's books on its clock. */
  account: number | null;
  /** The instant on every account's clock, for a simulated bank settling many accounts' books at once. */
  time: ScanTime;
  /**
   * Whether the account's sandbox faults ask that its transfers be answered uncertain (developer
   * mode; always false elsewhere, without a look). Only a simulated bank honours it: DemoBank holds
   * its decision in its books until it is asked without the fault. A real bank's answer is its own.
   */
  transfersHeld(): Promise<boolean>;
}

export interface CreditReport {
  /** Credits booked on the collection account after the cursor asked with, oldest first. */
  credits: BankCredit[];
  /** What to ask with next time: past these credits (the same cursor when there were none). */
  cursor: string | null;
}

/** A direct-debit mandate the payer signs at their bank: the bank keys it on Quipu's subscription id. */
export interface MandateOrder {
  mandateId: string;
  /** Who may debit: the merchant's name, as the bank shows it. */
  creditor: string;
  /** What the bank's mandate form shows: the subscription's service_reference, else its id. */
  reference: string;
  maxAmount: number;
  currency: string;
  payer: PayerAccount;
}

export type MandateResult =
  /** The bank activated the mandate. */
  | { status: 'active' }
  /** Signed; the bank activates (or rejects) it later and reports it among its mandate events. */
  | { status: 'pending' }
  /** The bank refused the mandate; `message` is its own words. */
  | { status: 'rejected'; message: string }
  /** The challenge's answers were wrong: nothing was signed, the payer may answer again. */
  | { status: 'wrong-answers' };

/** A change of a mandate at the bank, reported after the cursor Quipu last asked with. */
export interface MandateNews {
  mandateId: string;
  status: 'pending' | 'active' | 'rejected' | 'revoked';
  /** The bank's words for it. */
  reason: string;
  at: Date;
}

export interface MandateNewsReport {
  news: MandateNews[];
  cursor: string | null;
}

/** A debit under a mandate: the money goes to the collection account, like a payer's transfer. */
export interface DebitOrder {
  /** Unique per order: the debit id. */
  orderId: string;
  mandateId: string;
  /** The reference written into the credit, which reconciliation matches: the payment id. */
  reference: string;
  account: string;
  destination: CollectionAccount;
  amount: number;
  currency: string;
}

export type DebitResult =
  /** The bank took the debit and settles it at `settlesAt`. */
  | { status: 'accepted'; settlesAt: Date }
  /** The money moved; `credit` is the movement the bank reports on the collection account. */
  | { status: 'settled'; credit: BankCredit }
  /** The bank refused or failed the debit; `message` is its own words. */
  | { status: 'failed'; message: string }
  /** The bank did not answer: it may or may not have the debit. */
  | { status: 'uncertain' }
  /** Asked about a debit it never received: only then may the same order be submitted again. */
  | { status: 'unknown' };

/** What a bank that offers direct debits does besides transfers (automatic payments). */
export interface MandateBank {
  signMandate(order: MandateOrder, answers: readonly string[], call: BankCall): Promise<MandateResult>;
  /** Changes of mandates after `cursor` (null: from the first), oldest first: activations, rejections, revocations. */
  mandateNews(cursor: string | null, call: BankCall): Promise<MandateNewsReport>;
  /**
   * Debits travel to a bank in batches (a collection file), and so do the questions about them:
   * the answers come in the order of the orders, every order of a call on the account of `call`.
   */
  submitDebits(orders: readonly DebitOrder[], call: BankCall): Promise<DebitResult[]>;
  debitStatuses(orders: readonly DebitOrder[], call: BankCall): Promise<DebitResult[]>;
}

export interface BankConnector {
  readonly bankId: string;
  /** Labels of the values the bank asks for to authorise a transfer (e.g. coordinates of a card). */
  readonly challenge: readonly string[];
  login(credentials: PayerCredentials): Promise<LoginResult>;
  /** Whether answers have the form the challenge asks for: a typo is asked again, not a failed transfer. */
  acceptsAnswers(answers: readonly string[]): boolean;
  transfer(order: TransferOrder, answers: readonly string[], call: BankCall): Promise<TransferResult>;
  /**
   * What became of a transfer the bank left uncertain, or never answered (it may not even have
   * received it): `uncertain` as long as the bank cannot say.
   */
  transferStatus(order: TransferOrder, call: BankCall): Promise<TransferResult>;
  /** The credits the bank booked on the collection account after `cursor` (null: from its first). */
  credits(cursor: string | null, call: BankCall): Promise<CreditReport>;
  /** Present when the bank offers direct-debit mandates. */
  readonly mandates?: MandateBank;
}
