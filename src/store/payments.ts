// Payment rows and their mapping to the domain's Payment.
import type { ScanTime } from '../domain/scan-time.js';
import { onAccountClock } from './account-time.js';
import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Payment } from '../domain/payment.js';
import type { PaymentStatus, StatusDetail } from '../domain/payment-status.js';
import { changeMark, dialectOf, turnMark } from './database.js';
import { groupedInserts } from './group-commit.js';
import { GroupRead } from './group-read.js';
import { perDatabase } from './per-database.js';
import { prepare, preparedInsert } from './prepared.js';
import type { DB, PaymentRow, PaymentUpdate } from './schema.js';

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

export function toPayment(row: PaymentRow): Payment {
  return {
    paymentId: row.payment_id,
    receiverId: row.receiver_id,
    notificationToken: row.notification_token,
    status: row.status as PaymentStatus,
    statusDetail: row.status_detail as StatusDetail,
    version: row.version,
    subject: row.subject,
    body: row.body,
    amount: row.amount,
    currency: row.currency,
    discount: row.discount,
    refunded: row.refunded,
    transactionId: row.transaction_id,
    custom: row.custom,
    bankId: row.bank_id,
    bankName: row.bank_name,
    returnUrl: row.return_url,
    cancelUrl: row.cancel_url,
    pictureUrl: row.picture_url,
    notifyUrl: row.notify_url,
    notifyApiVersion: row.notify_api_version,
    contractUrl: row.contract_url,
    expiresAt: new Date(row.expires_at),
    sendEmail: row.send_email === 1,
    sendReminders: row.send_reminders === 1,
    payerName: row.payer_name,
    payerEmail: row.payer_email,
    responsibleUserEmail: row.responsible_user_email,
    fixedPayerPersonalIdentifier: row.fixed_payer_personal_identifier,
    integratorFee: row.integrator_fee,
    collectAccountUuid: row.collect_account_uuid,
    confirmTimeoutAt: date(row.confirm_timeout_at),
    mandatoryPaymentMethod: row.mandatory_payment_method,
    pspClientMerchantName: row.psp_client_merchant_name,
    personalIdentifier: row.personal_identifier,
    bankAccountNumber: row.bank_account_number,
    paymentMethod: row.payment_method,
    fundsSource: row.funds_source,
    receiptUrl: row.receipt_url,
    outOfDateConciliation: row.out_of_date_conciliation === 1,
    conciliationAt: date(row.conciliation_at),
    confirmedAt: date(row.confirmed_at),
    fundsDeliveryAt: date(row.funds_delivery_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

const insertRow = preparedInsert<PaymentRow>('payments');

const batchOf = perDatabase((db: Kysely<DB>) => groupedInserts(db, 'payments', (trx, row: PaymentRow) => insertRow.run(trx, row)));

/** Inserts a new payment; outside a transaction, through group commit with the inserts that arrive with it. */
export async function insertPayment(db: Kysely<DB>, row: PaymentRow): Promise<void> {
  if (db.isTransaction) {
    await insertRow.run(db, row);
    return;
  }
  await batchOf(db).add(row);
}

const livePayment = prepare(
  (db, paymentId: string, receiverId: number) =>
    db.selectFrom('payments').selectAll().where('payment_id', '=', paymentId).where('receiver_id', '=', receiverId).where('deleted_at', 'is', null),
  (paymentId, receiverId) => [paymentId, receiverId],
);

interface FindOptions {
  /** Lock the row until the transaction ends. */
  lock?: boolean;
  includeDeleted?: boolean;
}

/** A live (not deleted) payment of one account; another account's payment is not found. */
export async function findPayment(db: Kysely<DB>, receiverId: number, paymentId: string, options: FindOptions = {}): Promise<Payment | undefined> {
  if (!options.lock && !options.includeDeleted) {
    const row = (await livePayment.run(db, paymentId, receiverId)).rows[0];
    return row && toPayment(row);
  }
  const row = await db
    .selectFrom('payments')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('receiver_id', '=', receiverId)
    .$if(!options.includeDeleted, (q) => q.where('deleted_at', 'is', null))
    // SQLite transactions already hold the database's write lock (BEGIN IMMEDIATE).
    .$if(options.lock === true && dialectOf(db) === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  return row && toPayment(row);
}

// PostgreSQL: the payments that requests ask for in one turn are read in one round trip, whatever
// their number, by one statement the server has prepared.
const liveByIds = prepare(
  (db, paymentIds: string[]) =>
    db
      .selectFrom('payments')
      .selectAll()
      .where('payment_id', '=', sql<string>`any(${paymentIds})`)
      .where('deleted_at', 'is', null),
  (paymentIds) => [paymentIds],
);

interface ReadPayment {
  /** SQLite's change mark taken before the row was read (findPaymentToRead). */
  mark: number | undefined;
  payment: Readonly<Payment>;
}

/**
 * Payments read again are those being polled, recent ones: a few thousand. Bounded by bytes too,
 * since a tenant chooses a payment's size (`custom` up to BODY_LIMIT): counted by entries only,
 * 480 reads of 9 MB payments took the process out of memory. A payment's cost is its text, as
 * UTF-16 in the heap, plus the answers kept beside it (representation-cache.ts: UTF-8, escapes
 * up to six bytes a character), estimated from above; one too large to keep is read afresh.
 */
export const READ_CACHE_LIMITS = { entries: 4096, bytes: 64 * 1024 * 1024, entryBytes: 1024 * 1024 } as const;
const ENTRY_OVERHEAD = 2048;

export function readCacheCost(entry: ReadPayment): number {
  let chars = 0;
  for (const value of Object.values(entry.payment)) if (typeof value === 'string') chars += value.length;
  return ENTRY_OVERHEAD + 8 * chars;
}

const readCaches = perDatabase(
  (_db: Kysely<DB>) =>
    new LRUCache<string, ReadPayment>({
      max: READ_CACHE_LIMITS.entries,
      maxSize: READ_CACHE_LIMITS.bytes,
      maxEntrySize: READ_CACHE_LIMITS.entryBytes,
      sizeCalculation: readCacheCost,
    }),
);

/** What the read cache of `db` holds, in entries and estimated bytes: for tests that it stays within READ_CACHE_LIMITS. */
export function readCacheUse(db: Kysely<DB>): { entries: number; bytes: number } {
  const cache = readCaches(db);
  return { entries: cache.size, bytes: cache.calculatedSize };
}

/**
 * The frozen Payment of a row just read: the one already handed out while the row is at the same
 * version, since every change of a column a Payment holds moves the version (updatePayment,
 * HeldPayments). A payment polled while others commit is then one object, and its answer is
 * serialised once (representation-cache.ts), not rebuilt into new garbage at every read.
 */
function sharedPayment(cache: LRUCache<string, ReadPayment>, row: PaymentRow, mark: number | undefined): Readonly<Payment> {
  const held = cache.get(row.payment_id);
  if (held?.payment.version === row.version) {
    held.mark = mark;
    return held.payment;
  }
  const payment = Object.freeze(toPayment(row));
  cache.set(row.payment_id, { mark, payment });
  return payment;
}

const groupReads = perDatabase((db: Kysely<DB>) => {
  const cache = readCaches(db);
  return new GroupRead(async (ids: string[]) => {
    const { rows } = await liveByIds.run(db, ids);
    return new Map(rows.map((row) => [row.payment_id, sharedPayment(cache, row, undefined)]));
  });
});

/**
 * findPayment's answer for callers that only read it: the payment is frozen and may be shared.
 * On SQLite, a payment already read is answered from memory if the database's change mark
 * (`changeMark`) is still the one taken before that read, that is if no commit of this process or
 * any other has happened since: a GET sees every committed change, as if it had read the row. The
 * mark it is compared with is taken at the end of the turn (`turnMark`), after the request was
 * received. On PostgreSQL, outside a transaction, it is read with the reads that arrive with it
 * (group-read.ts): asked after the request arrived, it sees every commit made before, by any
 * process. Otherwise (inside a transaction, an in-memory database) it is findPayment.
 */
export async function findPaymentToRead(db: Kysely<DB>, receiverId: number, paymentId: string): Promise<Readonly<Payment> | undefined> {
  if (db.isTransaction) return findPayment(db, receiverId, paymentId);
  if (dialectOf(db) === 'postgres') {
    const payment = await groupReads(db).get(paymentId);
    return payment?.receiverId === receiverId ? payment : undefined;
  }
  const cache = readCaches(db);
  const held = cache.get(paymentId);
  if (held?.mark !== undefined && held.payment.receiverId === receiverId && held.mark === (await turnMark(db))) return held.payment;
  // Taken before reading, the mark can only be older than the row: a commit in between makes the
  // next request read again, never serve an older row.
  const mark = changeMark(db);
  if (mark === undefined) return findPayment(db, receiverId, paymentId);
  const row = (await livePayment.run(db, paymentId, receiverId)).rows[0];
  return row && sharedPayment(cache, row, mark);
}

export async function findPaymentByToken(db: Kysely<DB>, receiverId: number, token: string): Promise<Payment | undefined> {
  const row = await db
    .selectFrom('payments')
    .selectAll()
    .where('notification_token', '=', token)
    .where('receiver_id', '=', receiverId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row && toPayment(row);
}

/** Applies a change only if the payment is still at `version`, and answers the changed payment; undefined means someone changed it first. */
export async function updatePayment(db: Kysely<DB>, paymentId: string, version: number, changes: PaymentUpdate): Promise<Payment | undefined> {
  const row = await db
    .updateTable('payments')
    .set({ ...changes, version: version + 1 })
    .where('payment_id', '=', paymentId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
  return row && toPayment(row);
}

/**
 * Writes rows changed in memory from rows the transaction locked (HeldPayments), each only if it is
 * still at the version before its own, and answers how many were written. Only `columns` are set.
 * PostgreSQL takes them all in one statement, the rows as one JSON parameter read as the table's
 * own row type; SQLite, in process, one prepared update each.
 */
export async function updatePaymentRows(db: Kysely<DB>, rows: readonly PaymentRow[], columns: readonly (keyof PaymentRow)[]): Promise<number> {
  if (rows.length === 0) return 0;
  if (dialectOf(db) === 'postgres') {
    const set = sql.join(columns.map((column) => sql`${sql.ref(column)} = ${sql.ref(`u.${column}`)}`));
    const result = await sql`update payments as p set ${set}
      from jsonb_populate_recordset(null::payments, ${JSON.stringify(rows)}::jsonb) as u
      where p.payment_id = u.payment_id and p.version = u.version - 1`.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  }
  let written = 0;
  for (const row of rows) {
    const result = await db
      .updateTable('payments')
      .set(Object.fromEntries(columns.map((column) => [column, row[column]])))
      .where('payment_id', '=', row.payment_id)
      .where('version', '=', row.version - 1)
      .executeTakeFirst();
    written += Number(result.numUpdatedRows);
  }
  return written;
}

export interface DueReminder {
  paymentId: string;
  receiverId: number;
  /** When it fell due (developer clock). */
  at: number;
}

/** Payments whose next reminder is due on their account's clock, the longest due first. */
export async function listDueReminders(db: Kysely<DB>, time: ScanTime, limit: number): Promise<DueReminder[]> {
  const rows = await db
    .selectFrom('payments')
    .select(['payment_id', 'receiver_id', 'next_reminder_at'])
    .where(onAccountClock('payments', 'next_reminder_at', '<=', time))
    .orderBy('next_reminder_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ paymentId: r.payment_id, receiverId: r.receiver_id, at: r.next_reminder_at! }));
}

/**
 * Moves a payment's next reminder from `from` to `to` (null: none to come); false when it is no
 * longer `from`. Not a column a Payment holds: the version stays (sharedPayment).
 */
export async function moveNextReminder(db: Kysely<DB>, paymentId: string, from: number, to: number | null): Promise<boolean> {
  const result = await db
    .updateTable('payments')
    .set({ next_reminder_at: to })
    .where('payment_id', '=', paymentId)
    .where('next_reminder_at', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** When a payer first paid an account: banks treat an account paid before as a known recipient. */
export async function firstPaymentByPayer(db: Kysely<DB>, receiverId: number, payerEmail: string): Promise<Date | null> {
  const row = await db
    .selectFrom('payments')
    .select((eb) => eb.fn.min<number>('conciliation_at').as('first'))
    .where('receiver_id', '=', receiverId)
    .where('payer_email', '=', payerEmail)
    .where('conciliation_at', 'is not', null)
    .executeTakeFirst();
  return row?.first == null ? null : new Date(Number(row.first));
}

export async function insertRefund(
  db: Kysely<DB>,
  refund: { refundId: string; paymentId: string; receiverId: number; amount: number; at: Date },
): Promise<void> {
  await db
    .insertInto('refunds')
    .values({
      refund_id: refund.refundId,
      payment_id: refund.paymentId,
      receiver_id: refund.receiverId,
      amount: refund.amount,
      created_at: refund.at.getTime(),
    })
    .execute();
}

export async function listRefunds(db: Kysely<DB>, paymentId: string): Promise<{ refundId: string; amount: number; createdAt: Date }[]> {
  const rows = await db.selectFrom('refunds').selectAll().where('payment_id', '=', paymentId).orderBy('created_at').execute();
  return rows.map((r) => ({ refundId: r.refund_id, amount: r.amount, createdAt: new Date(r.created_at) }));
}
