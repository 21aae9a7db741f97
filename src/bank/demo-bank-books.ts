// DemoBank's books: every transfer it was asked for and what became of it, and the credits it
// booked on the collection account, numbered in booking order; and a journal of the requests it
// answered, for developers to see what Quipu asked their bank and when (`quipu demobank requests`).
// A simulated bank has no servers of its own, so its books live in Quipu's database, where the
// server, the workers and the CLI of an installation all see them (tables demobank_transfers,
// migration 008, and demobank_requests, migration 011). Quipu's own tables know nothing of them.
import type { Generated, Kysely } from 'kysely';
import type { BankCredit } from '../domain/bank-credit.js';
import { DEMO_BANK_ID } from '../domain/banks.js';
import type { DB } from '../store/schema.js';
import { lockSetting } from '../store/setting-lock.js';
import { writeSetting } from '../store/settings.js';
import { inChunks } from '../store/group-commit.js';
import { inTransaction } from '../store/transaction.js';

export type BookEntry =
  | { state: 'executed'; credit: BankCredit }
  | { state: 'failed' }
  /** `held`: what DemoBank decided about a transfer it answers uncertain because of its account's sandbox fault. */
  | { state: 'uncertain'; held?: BookEntry['state'] };

/** What moved and to where: a payer's transfer order or a debit order. */
interface MovedMoney {
  orderId: string;
  account: string;
  amount: number;
  currency: string;
  reference: string;
}

/** Who paid, as DemoBank reports it on the collection account. */
interface DemoPayer {
  name: string;
  email: string | null;
  personalIdentifier: string;
  accountNumber: string;
}

/** The name DemoBank gives the holder of a payer's account. */
export const demoHolderName = (personalIdentifier: string) => `Cliente DemoBank ${personalIdentifier}`;

/** The credit DemoBank books on the collection account for money that moved, transfer or debit alike. */
export function demoBankCredit(order: MovedMoney, payer: DemoPayer, paymentMethod: BankCredit['paymentMethod'], now: Date): BankCredit {
  return {
    bankReference: `${DEMO_BANK_ID}-${order.orderId}`,
    account: order.account,
    amount: order.amount,
    currency: order.currency,
    reference: order.reference,
    creditedAt: now,
    payerBankId: DEMO_BANK_ID,
    payerName: payer.name,
    payerEmail: payer.email,
    payerPersonalIdentifier: payer.personalIdentifier,
    payerAccountNumber: payer.accountNumber,
    paymentMethod,
    fundsSource: null,
  };
}

interface DemoBankTransfersTable {
  order_id: string;
  state: string;
  /** The credit of an executed transfer, as JSON. */
  credit: string | null;
  /** Its place in the credit feed. */
  credit_seq: number | null;
  /** What DemoBank decided about a transfer it leaves uncertain while its account asks for that fault (migration 028). */
  held_state: string | null;
  updated_at: number;
}

interface DemoBankRequestsTable {
  request_id: Generated<number>;
  /** Developer-clock milliseconds. */
  asked_at: number;
  operation: DemoBankOperation;
  order_id: string | null;
  payment_id: string | null;
  /** The cursor credits were asked after. */
  cursor: string | null;
  answer: string;
}

type BooksTables = {
  demobank_transfers: DemoBankTransfersTable;
  demobank_requests: DemoBankRequestsTable;
};

type BooksDb = Kysely<DB & BooksTables>;
const books = (db: Kysely<DB>): BooksDb => db.withTables<BooksTables>();

/** The number of the last credit booked; held locked while booking, so credits commit in the order of their numbers. */
const LAST_CREDIT = 'demobank:last-credit';

function creditOf(json: string): BankCredit {
  const credit = JSON.parse(json) as BankCredit & { creditedAt: string };
  return { ...credit, creditedAt: new Date(credit.creditedAt) };
}

function toEntry(row: Pick<DemoBankTransfersTable, 'state' | 'credit' | 'held_state'>): BookEntry {
  if (row.state === 'executed') return { state: 'executed', credit: creditOf(row.credit!) };
  if (row.state === 'uncertain' && row.held_state !== null) return { state: 'uncertain', held: row.held_state as BookEntry['state'] };
  return { state: row.state as 'failed' | 'uncertain' };
}

export async function findEntry(db: Kysely<DB>, orderId: string): Promise<BookEntry | undefined> {
  return (await findEntries(db, [orderId])).get(orderId);
}

/** The entries of these orders that the books have. */
export async function findEntries(db: Kysely<DB>, orderIds: readonly string[]): Promise<Map<string, BookEntry>> {
  const found = new Map<string, BookEntry>();
  for (const chunk of inChunks(orderIds)) {
    const rows = await books(db)
      .selectFrom('demobank_transfers')
      .select(['order_id', 'state', 'credit', 'held_state'])
      .where('order_id', 'in', chunk)
      .execute();
    for (const row of rows) found.set(row.order_id, toEntry(row));
  }
  return found;
}

/**
 * Books a transfer uncertain, holding what DemoBank decided (`held`) until its account's fault is
 * removed; an order already in the books keeps its entry. Returns what the books say afterwards.
 */
export async function holdTransfer(db: Kysely<DB>, orderId: string, held: BookEntry['state'], now: Date): Promise<BookEntry> {
  await books(db)
    .insertInto('demobank_transfers')
    .values({ order_id: orderId, state: 'uncertain', credit: null, credit_seq: null, held_state: held, updated_at: now.getTime() })
    .onConflict((oc) => oc.column('order_id').doNothing())
    .execute();
  return (await findEntry(db, orderId))!;
}

/**
 * Writes what became of a transfer, unless the books already say it was executed or failed (a bank
 * does not change its mind); returns what the books say afterwards. `toCollectionAccount`: an
 * executed transfer's credit joins the collection account's credit feed; one to another account
 * (an operation descriptor's target) never does.
 */
export async function bookTransfer(db: Kysely<DB>, orderId: string, entry: BookEntry, now: Date, toCollectionAccount: boolean): Promise<BookEntry> {
  return (await bookTransfers(db, [{ orderId, entry, now }], toCollectionAccount))[0]!;
}

/**
 * bookTransfer for many orders in one transaction (a day's debits settling together): the credit
 * numbers are taken under one lock, and the new entries written a hundred to a statement.
 */
export async function bookTransfers(
  db: Kysely<DB>,
  entries: readonly { orderId: string; entry: BookEntry; now: Date }[],
  toCollectionAccount: boolean,
): Promise<BookEntry[]> {
  return inTransaction(db, async (trx) => {
    const first = Number(await lockSetting(trx, LAST_CREDIT, '0'));
    let last = first;
    const current = await findEntries(
      trx,
      entries.map((e) => e.orderId),
    );
    const inserts: DemoBankTransfersTable[] = [];
    const updates: Omit<DemoBankTransfersTable, 'held_state'>[] = [];
    const booked = entries.map(({ orderId, entry, now }) => {
      const known = current.get(orderId);
      if (known && known.state !== 'uncertain') return known;
      const seq = entry.state === 'executed' && toCollectionAccount ? ++last : null;
      const row = {
        order_id: orderId,
        state: entry.state,
        credit: entry.state === 'executed' ? JSON.stringify(entry.credit) : null,
        credit_seq: seq,
        updated_at: now.getTime(),
      };
      if (known) updates.push(row);
      else inserts.push({ ...row, held_state: null });
      current.set(orderId, entry);
      return entry;
    });
    if (last !== first) await writeSetting(trx, LAST_CREDIT, String(last));
    for (const { order_id, ...row } of updates) await books(trx).updateTable('demobank_transfers').set(row).where('order_id', '=', order_id).execute();
    for (const chunk of inChunks(inserts)) await books(trx).insertInto('demobank_transfers').values(chunk).execute();
    return booked;
  });
}

/** The credits booked after number `after`, in booking order, with their numbers. */
export async function creditsAfter(db: Kysely<DB>, after: number, limit: number): Promise<{ seq: number; credit: BankCredit }[]> {
  const rows = await books(db)
    .selectFrom('demobank_transfers')
    .select(['credit', 'credit_seq'])
    .where('credit_seq', '>', after)
    .orderBy('credit_seq')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ seq: Number(row.credit_seq), credit: creditOf(row.credit!) }));
}

export type DemoBankOperation = 'transfer' | 'transfer-status' | 'credits' | 'mandate-sign' | 'mandate-news' | 'debit' | 'debit-status';

export interface DemoBankRequest {
  requestId: number;
  askedAt: Date;
  operation: DemoBankOperation;
  orderId: string | null;
  paymentId: string | null;
  cursor: string | null;
  /** What DemoBank answered: executed, failed or uncertain; for credits, how many it reported. */
  answer: string;
}

/** The journal keeps this many of the latest requests: bank polling asks every minute, for good. */
const JOURNAL_LENGTH = 10_000;

export async function journalRequest(db: Kysely<DB>, request: Omit<DemoBankRequest, 'requestId'>): Promise<void> {
  await journalRequests(db, [request]);
}

/** The requests of a batch (a file of debits, or the questions about them), a hundred to a statement. */
export async function journalRequests(db: Kysely<DB>, requests: readonly Omit<DemoBankRequest, 'requestId'>[]): Promise<void> {
  let latest = 0;
  for (const chunk of inChunks(requests)) {
    const ids = await books(db)
      .insertInto('demobank_requests')
      .values(
        chunk.map((request) => ({
          asked_at: request.askedAt.getTime(),
          operation: request.operation,
          order_id: request.orderId,
          payment_id: request.paymentId,
          cursor: request.cursor,
          answer: request.answer,
        })),
      )
      .returning('request_id')
      .execute();
    latest = Math.max(latest, ...ids.map((row) => Number(row.request_id)));
  }
  if (latest === 0) return;
  await books(db)
    .deleteFrom('demobank_requests')
    .where('request_id', '<=', latest - JOURNAL_LENGTH)
    .execute();
}

/** The latest `limit` requests (about one payment, if given), oldest first. */
export async function journaledRequests(db: Kysely<DB>, filter: { paymentId?: string; limit: number }): Promise<DemoBankRequest[]> {
  const rows = await books(db)
    .selectFrom('demobank_requests')
    .selectAll()
    .$if(filter.paymentId !== undefined, (q) => q.where('payment_id', '=', filter.paymentId!))
    .orderBy('request_id', 'desc')
    .limit(filter.limit)
    .execute();
  return rows.reverse().map((row) => ({
    requestId: Number(row.request_id),
    askedAt: new Date(Number(row.asked_at)),
    operation: row.operation,
    orderId: row.order_id,
    paymentId: row.payment_id,
    cursor: row.cursor,
    answer: row.answer,
  }));
}
