// Payment attempt rows.
import type { ScanTime } from '../domain/scan-time.js';
import { onAccountClock } from './account-time.js';
import type { Kysely } from 'kysely';
import type { AttemptMove } from '../domain/attempt-status.js';
import type { AttemptState, PaymentAttempt } from '../domain/payment-attempt.js';
import { moveBankSession } from './bank-sessions.js';
import type { DB, PaymentAttemptRow, PaymentAttemptsTable } from './schema.js';

export function toAttempt(row: PaymentAttemptRow): PaymentAttempt {
  return {
    attemptId: row.attempt_id,
    paymentId: row.payment_id,
    receiverId: row.receiver_id,
    bankId: row.bank_id,
    payerEmail: row.payer_email,
    personalIdentifier: row.personal_identifier,
    accountNumber: row.account_number,
    payerName: row.payer_name,
    state: row.state as AttemptState,
    failure: row.failure,
    startedAt: new Date(row.started_at),
    expiresAt: new Date(row.expires_at),
    updatedAt: new Date(row.updated_at),
  };
}

export async function insertAttempt(db: Kysely<DB>, row: PaymentAttemptsTable): Promise<void> {
  await db.insertInto('payment_attempts').values(row).execute();
}

export async function findAttempt(db: Kysely<DB>, attemptId: string): Promise<PaymentAttempt | undefined> {
  const row = await db.selectFrom('payment_attempts').selectAll().where('attempt_id', '=', attemptId).executeTakeFirst();
  return row && toAttempt(row);
}

/** Every attempt of a payment, oldest first. */
export async function attemptsOfPayment(db: Kysely<DB>, paymentId: string): Promise<PaymentAttempt[]> {
  const rows = await db.selectFrom('payment_attempts').selectAll().where('payment_id', '=', paymentId).orderBy('started_at').execute();
  return rows.map(toAttempt);
}

/** The payment's most recent attempt in one of `states`. */
export async function latestAttemptIn(db: Kysely<DB>, paymentId: string, states: readonly AttemptState[]): Promise<PaymentAttempt | undefined> {
  const row = await db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('state', 'in', states)
    .orderBy('started_at', 'desc')
    .executeTakeFirst();
  return row && toAttempt(row);
}

/** The language each payer last started an attempt in, by payment, for those of `paymentIds` that have one. */
export async function payerLanguages(db: Kysely<DB>, paymentIds: readonly string[]): Promise<Map<string, string>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('payment_attempts')
    .select(['payment_id', 'payer_lang'])
    .where('payment_id', 'in', paymentIds)
    .where('payer_lang', 'is not', null)
    .orderBy('started_at')
    .execute();
  return new Map(rows.map((row) => [row.payment_id, row.payer_lang!]));
}

/** Attempts in `state` unchanged for longer than `ageMs` on their account's clock, oldest first. */
export async function attemptsUnchangedFor(db: Kysely<DB>, state: AttemptState, time: ScanTime, ageMs: number, limit: number): Promise<PaymentAttempt[]> {
  const rows = await db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('state', '=', state)
    .where(onAccountClock('payment_attempts', 'updated_at', '<', time, -ageMs))
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  return rows.map(toAttempt);
}

/** Attempts in `state`, the longest unchanged first, after `after` (the last of the previous page). */
export async function attemptsInState(db: Kysely<DB>, state: AttemptState, after: PaymentAttempt | undefined, limit: number): Promise<PaymentAttempt[]> {
  const rows = await db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('state', '=', state)
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('updated_at', '>', after!.updatedAt.getTime()),
          eb.and([eb('updated_at', '=', after!.updatedAt.getTime()), eb('attempt_id', '>', after!.attemptId)]),
        ]),
      ),
    )
    .orderBy('updated_at')
    .orderBy('attempt_id')
    .limit(limit)
    .execute();
  return rows.map(toAttempt);
}

/**
 * Writes an attempt's move from `from`: a compare-and-set, so of two requests racing on one
 * attempt exactly one wins. False means the attempt was not in `from`.
 */
export function moveAttempt(db: Kysely<DB>, attemptId: string, from: AttemptState, move: AttemptMove): Promise<boolean> {
  return moveBankSession(db, 'payment_attempts', attemptId, from, move);
}
