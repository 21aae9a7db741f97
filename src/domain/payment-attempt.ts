// A payer's attempt to pay. Each attempt lasts 3 hours (the contract's limit) and never outlives
// its payment; the payer may start another one until the payment expires.
import { isPayable, type PaymentState } from './payment-status.js';
import { parseRut } from './rut.js';

export const ATTEMPT_DURATION_MS = 3 * 3_600_000;

export const ATTEMPT_STATES = [
  /** The payer chose a bank and has not logged in yet. */
  'started',
  /** The bank accepted the payer's credentials. */
  'authenticated',
  /** A request is asking the bank to transfer: no second request may do the same. */
  'authorizing',
  /** The bank transferred the money. */
  'executed',
  /** The bank did not say whether it transferred (or could not be reached); it will confirm or fail later. */
  'uncertain',
  /** The bank refused or failed the transfer. */
  'failed',
] as const;
export type AttemptState = (typeof ATTEMPT_STATES)[number];

/**
 * An attempt in these states may have moved the payer's money without the bank saying so yet:
 * while a payment has one, no other attempt of it may ask a bank to transfer, or it is paid twice.
 */
export const AWAITING_BANK_STATES = ['authorizing', 'uncertain'] as const satisfies readonly AttemptState[];

export interface PaymentAttempt {
  attemptId: string;
  paymentId: string;
  receiverId: number;
  bankId: string;
  payerEmail: string;
  /** Known once the payer logged in to the bank. */
  personalIdentifier: string | null;
  accountNumber: string | null;
  payerName: string | null;
  state: AttemptState;
  /** The bank's message when the transfer failed. */
  failure: string | null;
  startedAt: Date;
  expiresAt: Date;
  updatedAt: Date;
}

/** An attempt ends 3 hours after it starts, or when the payment expires if that comes first. */
export function attemptDeadline(startedAt: Date, paymentExpiresAt: Date): Date {
  const end = startedAt.getTime() + ATTEMPT_DURATION_MS;
  return new Date(Math.min(end, paymentExpiresAt.getTime()));
}

export function isAttemptOpen(attempt: Pick<PaymentAttempt, 'expiresAt'>, now: Date): boolean {
  return now < attempt.expiresAt;
}

/** Why a payer cannot pay a payment now, if they cannot. */
export type PayerBlock = 'paid' | 'verifying' | 'declined' | 'expired';

export function payerBlock(payment: PaymentState & { expiresAt: Date }, now: Date): PayerBlock | undefined {
  if (payment.status === 'done') return 'paid';
  if (payment.status === 'verifying') return 'verifying';
  if (!isPayable(payment)) return 'declined';
  if (now >= payment.expiresAt) return 'expired';
  return undefined;
}

/** fixed_payer_personal_identifier: only that payer may pay. RUTs compare by value, however they are written. */
export function payerAllowed(fixedIdentifier: string | null, personalIdentifier: string): boolean {
  if (fixedIdentifier === null) return true;
  const fixed = parseRut(fixedIdentifier);
  const payer = parseRut(personalIdentifier);
  if (fixed && payer) return fixed.body === payer.body && fixed.checkDigit === payer.checkDigit;
  const bare = (text: string) => text.replace(/[.\s-]/g, '').toUpperCase();
  return bare(fixedIdentifier) === bare(personalIdentifier);
}
