// Debit rows: the debits that collect charge intents, and the job's scans of them.
import { onAccountClock, type ScanTime } from './account-time.js';
import type { Kysely } from 'kysely';
import type { Debit, DebitState } from '../domain/debit.js';
import type { DebitMove } from '../domain/debit-status.js';
import { dialectOf } from './database.js';
import { preparedInsert } from './prepared.js';
import type { DB, DebitRow, DebitsTable, DebitUpdate } from './schema.js';

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(Number(ms)));

export function toDebit(row: DebitRow): Debit {
  return {
    debitId: row.debit_id,
    paymentId: row.payment_id,
    receiverId: Number(row.receiver_id),
    subscriptionId: row.subscription_id,
    bankId: row.bank_id,
    amount: Number(row.amount),
    currency: row.currency,
    errorResponseUrl: row.error_response_url,
    state: row.state as DebitState,
    failure: row.failure,
    nextCheckAt: new Date(Number(row.next_check_at)),
    submittedAt: date(row.submitted_at),
    settledAt: date(row.settled_at),
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}

const DEBIT_COLUMNS = Object.keys({
  debit_id: 0,
  payment_id: 0,
  receiver_id: 0,
  subscription_id: 0,
  bank_id: 0,
  amount: 0,
  currency: 0,
  error_response_url: 0,
  state: 0,
  failure: 0,
  next_check_at: 0,
  submitted_at: 0,
  settled_at: 0,
  created_at: 0,
  updated_at: 0,
} satisfies Record<keyof DebitsTable, 0>) as (keyof DebitsTable)[];

const insertRow = preparedInsert<DebitsTable>('debits', DEBIT_COLUMNS);

export async function insertDebit(db: Kysely<DB>, row: DebitsTable): Promise<void> {
  await insertRow.run(db, row);
}

export async function findDebit(db: Kysely<DB>, debitId: string, options: { lock?: boolean } = {}): Promise<Debit | undefined> {
  const row = await db
    .selectFrom('debits')
    .selectAll()
    .where('debit_id', '=', debitId)
    .$if(options.lock === true && dialectOf(db) === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  return row && toDebit(row);
}

/** The debit of a charge's payment; undefined for a payment that is not a charge. */
export async function findDebitOfPayment(db: Kysely<DB>, paymentId: string): Promise<Debit | undefined> {
  const row = await db.selectFrom('debits').selectAll().where('payment_id', '=', paymentId).executeTakeFirst();
  return row && toDebit(row);
}

/** Writes a debit's move from `from` (compare-and-set): false when another process moved it first. */
export async function moveDebit(db: Kysely<DB>, debitId: string, from: DebitState, move: DebitMove): Promise<boolean> {
  const update: DebitUpdate = {
    state: move.state,
    updated_at: move.at.getTime(),
    ...(move.failure !== undefined && { failure: move.failure }),
    ...(move.nextCheckAt && { next_check_at: move.nextCheckAt.getTime() }),
    ...(move.submittedAt && { submitted_at: move.submittedAt.getTime() }),
    ...(move.settledAt && { settled_at: move.settledAt.getTime() }),
  };
  const result = await db.updateTable('debits').set(update).where('debit_id', '=', debitId).where('state', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Debits in `state` whose next look is due on their account's clock, the earliest first. */
export async function debitsDue(db: Kysely<DB>, state: DebitState, time: ScanTime, limit: number): Promise<Debit[]> {
  const rows = await db
    .selectFrom('debits')
    .selectAll()
    .where('state', '=', state)
    .where(onAccountClock('debits', 'next_check_at', '<=', time))
    .orderBy('next_check_at')
    .limit(limit)
    .execute();
  return rows.map(toDebit);
}

/** Debits still `submitting` unchanged for longer than `ageMs` on their account's clock: their process stopped while asking the bank. */
export async function staleSubmissions(db: Kysely<DB>, time: ScanTime, ageMs: number, limit: number): Promise<Debit[]> {
  const rows = await db
    .selectFrom('debits')
    .selectAll()
    .where('state', '=', 'submitting')
    .where(onAccountClock('debits', 'updated_at', '<', time, -ageMs))
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  return rows.map(toDebit);
}

/** A subscription's charges, newest first. */
export async function debitsOfSubscription(db: Kysely<DB>, subscriptionId: string, limit: number): Promise<Debit[]> {
  const rows = await db.selectFrom('debits').selectAll().where('subscription_id', '=', subscriptionId).orderBy('created_at', 'desc').limit(limit).execute();
  return rows.map(toDebit);
}
