// Debit rows: the debits that collect charge intents, and the job's scans of them.
import type { ScanTime } from '../domain/scan-time.js';
import { onAccountClock } from './account-time.js';
import { type Kysely, sql } from 'kysely';
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

const insertRow = preparedInsert<DebitsTable>('debits');

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
async function moveDebit(db: Kysely<DB>, debitId: string, from: DebitState, move: DebitMove): Promise<boolean> {
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

export interface DebitWrite {
  debitId: string;
  from: DebitState;
  move: DebitMove;
}

/**
 * Writes many debits' moves, each from its own `from` (compare-and-set), and answers the ids of
 * those written: the others another process moved first. PostgreSQL takes them in one statement,
 * the moves as one JSON parameter; SQLite, in process, one prepared update each.
 */
export async function moveDebits(db: Kysely<DB>, writes: readonly DebitWrite[]): Promise<Set<string>> {
  if (dialectOf(db) !== 'postgres') {
    const written = new Set<string>();
    for (const { debitId, from, move } of writes) if (await moveDebit(db, debitId, from, move)) written.add(debitId);
    return written;
  }
  const ms = (date: Date | null | undefined) => (date ? date.getTime() : null);
  const rows = writes.map(({ debitId, from, move }) => ({
    debit_id: debitId,
    from_state: from,
    state: move.state,
    updated_at: move.at.getTime(),
    failure: move.failure ?? null,
    next_check_at: ms(move.nextCheckAt),
    submitted_at: ms(move.submittedAt),
    settled_at: ms(move.settledAt),
  }));
  // A move leaves the columns it does not name as they were, as moveDebit does.
  const { rows: moved } = await sql<{ debit_id: string }>`update debits as d set state = u.state, updated_at = u.updated_at,
      failure = coalesce(u.failure, d.failure), next_check_at = coalesce(u.next_check_at, d.next_check_at),
      submitted_at = coalesce(u.submitted_at, d.submitted_at), settled_at = coalesce(u.settled_at, d.settled_at)
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as u(debit_id text, from_state text, state text, updated_at bigint,
      failure text, next_check_at bigint, submitted_at bigint, settled_at bigint)
    where d.debit_id = u.debit_id and d.state = u.from_state
    returning d.debit_id`.execute(db);
  return new Set(moved.map((row) => row.debit_id));
}

/**
 * Debits in `state` whose next look is due on their account's clock, the earliest first. `claim`:
 * inside a transaction that moves them, each locked until it ends, skipping those another
 * transaction holds, so that processes claiming at once take different debits (PostgreSQL; a
 * SQLite transaction holds the whole database).
 */
export async function debitsDue(db: Kysely<DB>, state: DebitState, time: ScanTime, limit: number, options: { claim?: boolean } = {}): Promise<Debit[]> {
  const rows = await db
    .selectFrom('debits')
    .selectAll()
    .where('state', '=', state)
    .where(onAccountClock('debits', 'next_check_at', '<=', time))
    .orderBy('next_check_at')
    .limit(limit)
    .$if(options.claim === true && dialectOf(db) === 'postgres', (q) => q.forUpdate().skipLocked())
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
