// DemoBank's direct debits: the mandates payers sign at it and the debits Quipu sends under them,
// kept in its books (tables demobank_mandates and demobank_debits, migration 014) like its
// transfers. A simulated bank has no clock of its own: what falls due (a pending mandate's
// approval, a debit's settlement) happens the next time DemoBank is asked anything about it, on
// Quipu's developer clock. The triggers are the scenario table's (demo-bank-scenarios.ts).
import type { ScanTime } from '../domain/scan-time.js';
import { onAccountClock } from '../store/account-time.js';
import type { Kysely } from 'kysely';
import type { BankCredit } from '../domain/bank-credit.js';
import { nextBusinessDay } from '../domain/business-days.js';
import { parseRut } from '../domain/rut.js';
import { dialectOf } from '../store/database.js';
import { inChunks } from '../store/group-commit.js';
import type { DB } from '../store/schema.js';
import { lockSetting } from '../store/setting-lock.js';
import { writeSetting } from '../store/settings.js';
import { inTransaction } from '../store/transaction.js';
import type { BankCall, DebitOrder, DebitResult, MandateBank, MandateNews, MandateNewsReport, MandateOrder, MandateResult } from './connector.js';
import { type BookEntry, bookTransfers, demoBankCredit, demoHolderName, findEntries, journalRequest, journalRequests } from './demo-bank-books.js';
import { DEMO_COORDINATES, INSUFFICIENT_FUNDS_RUT, PENDING_APPROVAL_RUT } from './demo-bank-scenarios.js';

export const MANDATE_REJECTED = 'Mandato rechazado por el banco';
export const MANDATE_REVOKED = 'Mandato revocado por el titular';
export const INSUFFICIENT_FUNDS = 'Fondos insuficientes';
const MANDATE_NOT_ACTIVE = 'Mandato no vigente';
const OVER_MAXIMUM = 'Monto supera el máximo del mandato';
const DEBIT_REFUSED = 'Cargo rechazado por el banco';
const NEWS_PER_REPORT = 500;
const SETTLEMENTS_PER_TRANSACTION = 500;

type MandateBookState = 'pending' | 'active' | 'rejected' | 'revoked';
type DebitBookState = 'processing' | 'settled' | 'failed';

interface DemoBankMandatesTable {
  mandate_id: string;
  personal_identifier: string;
  account_number: string;
  creditor: string;
  reference: string;
  max_amount: number;
  currency: string;
  state: MandateBookState;
  reason: string;
  /** Instant a pending mandate is approved at, on the clock of the account it collects for. */
  activates_at: number | null;
  /** The account the mandate collects for (null for mandates booked before migration 026: the installation's clock). */
  receiver_id: number | null;
  /** Its place in the news feed: every change moves it to the end. */
  event_seq: number;
  signed_at: number;
  updated_at: number;
}

interface DemoBankDebitsTable {
  order_id: string;
  mandate_id: string;
  payment_id: string;
  /** The order as received, JSON: the credit of its settlement is written from it. */
  order_json: string;
  state: DebitBookState;
  message: string | null;
  settles_at: number;
  received_at: number;
  /** How many times the order was submitted: more than 1 is a debit Quipu sent twice (answered as one). */
  submissions: number;
  updated_at: number;
  /** The account the debit collects for: it settles on that account's clock. */
  receiver_id: number | null;
}

type Tables = { demobank_mandates: DemoBankMandatesTable; demobank_debits: DemoBankDebitsTable };
const books = (db: Kysely<DB>) => db.withTables<Tables>();

/** The number of the last mandate change; held locked while writing one, so changes commit in the order of their numbers. */
const LAST_MANDATE_NEWS = 'demobank:last-mandate-news';

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);
const sameRut = (a: string, b: string) => {
  const x = parseRut(a);
  const y = parseRut(b);
  return x !== undefined && y !== undefined && x.body === y.body && x.checkDigit === y.checkDigit;
};

export interface DemoMandate {
  mandateId: string;
  personalIdentifier: string;
  creditor: string;
  reference: string;
  maxAmount: number;
  currency: string;
  state: MandateBookState;
  reason: string;
  activatesAt: Date | null;
  signedAt: Date;
}

function toMandate(row: DemoBankMandatesTable): DemoMandate {
  return {
    mandateId: row.mandate_id,
    personalIdentifier: row.personal_identifier,
    creditor: row.creditor,
    reference: row.reference,
    maxAmount: Number(row.max_amount),
    currency: row.currency,
    state: row.state,
    reason: row.reason,
    activatesAt: row.activates_at === null ? null : new Date(Number(row.activates_at)),
    signedAt: new Date(Number(row.signed_at)),
  };
}

async function findMandateRow(db: Kysely<DB>, mandateId: string): Promise<DemoBankMandatesTable | undefined> {
  return books(db).selectFrom('demobank_mandates').selectAll().where('mandate_id', '=', mandateId).executeTakeFirst();
}

export async function findDemoMandate(db: Kysely<DB>, mandateId: string): Promise<DemoMandate | undefined> {
  const row = await findMandateRow(db, mandateId);
  return row && toMandate(row);
}

/** The mandates signed at DemoBank, newest first; with `personalIdentifier` (formatted as its logins give it), one payer's: what the bank portal lists. */
export async function demoMandates(db: Kysely<DB>, filter: { personalIdentifier?: string; limit: number }): Promise<DemoMandate[]> {
  const rows = await books(db)
    .selectFrom('demobank_mandates')
    .selectAll()
    .$if(filter.personalIdentifier !== undefined, (q) => q.where('personal_identifier', '=', filter.personalIdentifier!))
    .orderBy('signed_at', 'desc')
    .orderBy('mandate_id')
    .limit(filter.limit)
    .execute();
  return rows.map(toMandate);
}

/** Writes a mandate's new state as the next piece of news, in `trx`. */
async function changeMandate(
  trx: Kysely<DB>,
  mandateId: string,
  state: MandateBookState,
  reason: string,
  now: Date,
  activatesAt: Date | null = null,
): Promise<void> {
  const seq = Number(await lockSetting(trx, LAST_MANDATE_NEWS, '0')) + 1;
  await writeSetting(trx, LAST_MANDATE_NEWS, String(seq));
  await books(trx)
    .updateTable('demobank_mandates')
    .set({ state, reason, event_seq: seq, updated_at: now.getTime(), activates_at: activatesAt?.getTime() ?? null })
    .where('mandate_id', '=', mandateId)
    .execute();
}

/** Approves the pending mandates whose day has come on their account's clock, as of that day. */
async function approveDueMandates(db: Kysely<DB>, time: ScanTime): Promise<void> {
  const due = await books(db)
    .selectFrom('demobank_mandates')
    .select(['mandate_id', 'activates_at'])
    .where('state', '=', 'pending')
    .where(onAccountClock('demobank_mandates', 'activates_at', '<=', time))
    .execute();
  if (due.length === 0) return;
  await inTransaction(db, async (trx) => {
    for (const { mandate_id, activates_at } of due)
      await changeMandate(trx, mandate_id, 'active', 'Mandato aprobado por el banco', new Date(Number(activates_at)));
  });
}

/**
 * A developer decides what DemoBank would: approve or reject a pending mandate, or revoke one for its
 * payer (the portal's button). Returns false when the mandate is not in a state that allows it.
 */
export async function decideMandate(db: Kysely<DB>, mandateId: string, decision: 'approve' | 'reject' | 'revoke', now: Date): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const row = await findMandateRow(trx, mandateId);
    if (!row) return false;
    if (decision === 'revoke') {
      if (row.state !== 'active' && row.state !== 'pending') return false;
      await changeMandate(trx, mandateId, 'revoked', MANDATE_REVOKED, now);
      return true;
    }
    if (row.state !== 'pending') return false;
    await changeMandate(
      trx,
      mandateId,
      decision === 'approve' ? 'active' : 'rejected',
      decision === 'approve' ? 'Mandato aprobado por el banco' : MANDATE_REJECTED,
      now,
    );
    return true;
  });
}

function signOutcome(answers: readonly string[]): 'sign' | 'reject' | 'wrong' {
  if (same(answers, DEMO_COORDINATES.pay)) return 'sign';
  if (same(answers, DEMO_COORDINATES.fail)) return 'reject';
  return 'wrong';
}

function mandateResult(row: Pick<DemoBankMandatesTable, 'state' | 'reason'>): MandateResult {
  if (row.state === 'active') return { status: 'active' };
  if (row.state === 'pending') return { status: 'pending' };
  return { status: 'rejected', message: row.reason };
}

async function signMandate(db: Kysely<DB>, order: MandateOrder, answers: readonly string[], call: BankCall): Promise<MandateResult> {
  const outcome = signOutcome(answers);
  const result = await inTransaction(db, async (trx): Promise<MandateResult> => {
    if (outcome === 'wrong') return { status: 'wrong-answers' };
    // A mandate is signed once: a second signature of the same mandate gets the first one's answer.
    const existing = await findMandateRow(trx, order.mandateId);
    if (existing) return mandateResult(existing);
    const pending = outcome === 'sign' && sameRut(order.payer.personalIdentifier, PENDING_APPROVAL_RUT);
    const state: MandateBookState = outcome === 'reject' ? 'rejected' : pending ? 'pending' : 'active';
    const reason = outcome === 'reject' ? MANDATE_REJECTED : pending ? 'Mandato pendiente de aprobación del banco' : 'Mandato vigente';
    const activatesAt = pending ? nextBusinessDay(call.now) : null;
    await books(trx)
      .insertInto('demobank_mandates')
      .values({
        mandate_id: order.mandateId,
        personal_identifier: order.payer.personalIdentifier,
        account_number: order.payer.accountNumber,
        creditor: order.creditor,
        reference: order.reference,
        max_amount: order.maxAmount,
        currency: order.currency,
        state,
        reason,
        activates_at: null,
        event_seq: 0,
        signed_at: call.now.getTime(),
        updated_at: call.now.getTime(),
        receiver_id: call.account,
      })
      .execute();
    await changeMandate(trx, order.mandateId, state, reason, call.now, activatesAt);
    return mandateResult({ state, reason });
  });
  await journalRequest(db, { askedAt: call.now, operation: 'mandate-sign', orderId: order.mandateId, paymentId: null, cursor: null, answer: result.status });
  return result;
}

async function mandateNews(db: Kysely<DB>, cursor: string | null, call: BankCall): Promise<MandateNewsReport> {
  if (cursor !== null && !/^\d+$/.test(cursor)) throw new Error(`not a DemoBank cursor: ${cursor}`);
  await approveDueMandates(db, call.time);
  const rows = await books(db)
    .selectFrom('demobank_mandates')
    .selectAll()
    .where('event_seq', '>', cursor === null ? 0 : Number(cursor))
    .orderBy('event_seq')
    .limit(NEWS_PER_REPORT)
    .execute();
  const news: MandateNews[] = rows.map((row) => ({ mandateId: row.mandate_id, status: row.state, reason: row.reason, at: new Date(Number(row.updated_at)) }));
  await journalRequest(db, { askedAt: call.now, operation: 'mandate-news', orderId: null, paymentId: null, cursor, answer: `${news.length} changes` });
  return { news, cursor: rows.length > 0 ? String(rows.at(-1)!.event_seq) : cursor };
}

function creditOf(order: DebitOrder, mandate: DemoBankMandatesTable, now: Date): BankCredit {
  const payer = {
    name: demoHolderName(mandate.personal_identifier),
    email: null,
    personalIdentifier: mandate.personal_identifier,
    accountNumber: mandate.account_number,
  };
  return demoBankCredit(order, payer, 'not_available', now);
}

/** Why DemoBank fails a debit on its settlement day, if it does. */
function settlementFailure(mandate: DemoBankMandatesTable | undefined): string | undefined {
  if (!mandate) return MANDATE_NOT_ACTIVE;
  if (mandate.state === 'revoked') return MANDATE_REVOKED;
  if (mandate.state !== 'active') return MANDATE_NOT_ACTIVE;
  if (sameRut(mandate.personal_identifier, INSUFFICIENT_FUNDS_RUT)) return INSUFFICIENT_FUNDS;
  return undefined;
}

async function findMandateRows(db: Kysely<DB>, mandateIds: readonly string[]): Promise<Map<string, DemoBankMandatesTable>> {
  const found = new Map<string, DemoBankMandatesTable>();
  for (const chunk of inChunks([...new Set(mandateIds)])) {
    const rows = await books(db).selectFrom('demobank_mandates').selectAll().where('mandate_id', 'in', chunk).execute();
    for (const row of rows) found.set(row.mandate_id, row);
  }
  return found;
}

/**
 * Settles (or fails) debits in `trx`, booking the credits of those whose money moves on the
 * collection account: on their settlement day, or `forced` by a developer at that instant.
 */
async function settle(trx: Kysely<DB>, rows: readonly DemoBankDebitsTable[], forced?: { decision: 'settle' | 'fail'; now: Date }): Promise<void> {
  const mandates = await findMandateRows(
    trx,
    rows.map((row) => row.mandate_id),
  );
  const failures = new Map<string, string[]>();
  const credits: { orderId: string; entry: BookEntry; now: Date }[] = [];
  for (const row of rows) {
    const mandate = mandates.get(row.mandate_id);
    // Failed by hand, a debit fails for the reason its settlement day would have given, if any.
    const failure =
      forced?.decision === 'fail' ? (settlementFailure(mandate) ?? DEBIT_REFUSED) : forced?.decision === 'settle' ? undefined : settlementFailure(mandate);
    if (failure !== undefined || !mandate) {
      const message = failure ?? MANDATE_NOT_ACTIVE;
      failures.set(message, [...(failures.get(message) ?? []), row.order_id]);
      continue;
    }
    const now = forced?.now ?? new Date(Number(row.settles_at));
    credits.push({ orderId: row.order_id, entry: { state: 'executed', credit: creditOf(JSON.parse(row.order_json) as DebitOrder, mandate, now) }, now });
  }
  // Each debit's books are dated on its settlement day, or at the developer's decision.
  const moved = (state: DebitBookState, message: string | null, orderIds: readonly string[]) =>
    Promise.all(
      inChunks(orderIds).map((chunk) =>
        books(trx)
          .updateTable('demobank_debits')
          .set((eb) => ({ state, ...(message !== null && { message }), updated_at: forced ? forced.now.getTime() : eb.ref('settles_at') }))
          .where('order_id', 'in', chunk)
          .execute(),
      ),
    );
  for (const [message, orderIds] of failures) await moved('failed', message, orderIds);
  if (credits.length === 0) return;
  await bookTransfers(trx, credits, true);
  await moved(
    'settled',
    null,
    credits.map((c) => c.orderId),
  );
}

/** Settles every debit whose settlement day has come on its account's clock, as of that day. Runs before DemoBank answers about debits or credits. */
export async function settleDueDebits(db: Kysely<DB>, time: ScanTime): Promise<void> {
  for (;;) {
    // Read in the transaction that settles them, so that callers at once (the debit job asks about
    // many debits in parallel) share the work instead of each settling every due debit again: on
    // PostgreSQL each skips the rows another is settling; SQLite's transactions run one at a time.
    const settled = await inTransaction(db, async (trx) => {
      const due = await books(trx)
        .selectFrom('demobank_debits')
        .selectAll()
        .where('state', '=', 'processing')
        .where(onAccountClock('demobank_debits', 'settles_at', '<=', time))
        .orderBy('settles_at')
        .limit(SETTLEMENTS_PER_TRANSACTION)
        .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate().skipLocked())
        .execute();
      if (due.length > 0) await settle(trx, due);
      return due.length;
    });
    if (settled < SETTLEMENTS_PER_TRANSACTION) return;
  }
}

/** A developer settles or fails a debit DemoBank is processing, before its day; false when it is not processing. */
export async function decideDebit(db: Kysely<DB>, orderId: string, decision: 'settle' | 'fail', now: Date): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const row = await books(trx).selectFrom('demobank_debits').selectAll().where('order_id', '=', orderId).executeTakeFirst();
    if (!row || row.state !== 'processing') return false;
    await settle(trx, [row], { decision, now });
    return true;
  });
}

/** What the books say of these orders: those they do not have are left out (unknown to the bank). */
async function debitResults(db: Kysely<DB>, orderIds: readonly string[], options: { lock?: boolean } = {}): Promise<Map<string, DebitResult>> {
  const rows: DemoBankDebitsTable[] = [];
  for (const chunk of inChunks(orderIds))
    rows.push(
      ...(await books(db)
        .selectFrom('demobank_debits')
        .selectAll()
        .where('order_id', 'in', chunk)
        .orderBy('order_id')
        .$if(options.lock === true, (q) => q.forShare())
        .execute()),
    );
  const entries = await findEntries(
    db,
    rows.filter((row) => row.state === 'settled').map((row) => row.order_id),
  );
  return new Map(
    rows.map((row): [string, DebitResult] => {
      if (row.state === 'processing') return [row.order_id, { status: 'accepted', settlesAt: new Date(Number(row.settles_at)) }];
      if (row.state === 'failed') return [row.order_id, { status: 'failed', message: row.message ?? DEBIT_REFUSED }];
      const entry = entries.get(row.order_id);
      if (entry?.state !== 'executed') throw new Error(`DemoBank's books have no credit for settled debit ${row.order_id}`);
      return [row.order_id, { status: 'settled', credit: entry.credit }];
    }),
  );
}

/** The answers to a batch, journaled as DemoBank's requests (one per order), in the orders' order. */
async function answered(
  db: Kysely<DB>,
  call: BankCall,
  operation: 'debit' | 'debit-status',
  orders: readonly DebitOrder[],
  results: ReadonlyMap<string, DebitResult>,
): Promise<DebitResult[]> {
  const answers = orders.map((order) => results.get(order.orderId) ?? { status: 'unknown' as const });
  await journalRequests(
    db,
    orders.map((order, i) => ({ askedAt: call.now, operation, orderId: order.orderId, paymentId: order.reference, cursor: null, answer: answers[i]!.status })),
  );
  return answers;
}

/** Why DemoBank refuses a debit on receipt, if it does. */
function refusalOf(order: DebitOrder, mandate: DemoBankMandatesTable | undefined): string | undefined {
  if (mandate?.state === 'revoked') return MANDATE_REVOKED;
  if (mandate?.state !== 'active') return MANDATE_NOT_ACTIVE;
  if (order.amount > Number(mandate.max_amount)) return OVER_MAXIMUM;
  return undefined;
}

async function submitDebits(db: Kysely<DB>, orders: readonly DebitOrder[], call: BankCall): Promise<DebitResult[]> {
  const results = await inTransaction(db, async (trx) => {
    // The same order twice is one debit: the second submission gets the first one's answer, and is counted.
    const results = await debitResults(
      trx,
      orders.map((order) => order.orderId),
    );
    const again = orders.filter((order) => results.has(order.orderId)).map((order) => order.orderId);
    for (const chunk of inChunks(again))
      await books(trx)
        .updateTable('demobank_debits')
        .set((eb) => ({ submissions: eb('submissions', '+', 1) }))
        .where('order_id', 'in', chunk)
        .execute();
    const fresh = orders.filter((order) => !results.has(order.orderId));
    const mandates = await findMandateRows(
      trx,
      fresh.map((order) => order.mandateId),
    );
    const settlesAt = nextBusinessDay(call.now);
    const rows = fresh.map((order): DemoBankDebitsTable => {
      const refusal = refusalOf(order, mandates.get(order.mandateId));
      results.set(order.orderId, refusal ? { status: 'failed', message: refusal } : { status: 'accepted', settlesAt });
      return {
        order_id: order.orderId,
        mandate_id: order.mandateId,
        payment_id: order.reference,
        order_json: JSON.stringify(order),
        state: refusal ? 'failed' : 'processing',
        message: refusal ?? null,
        settles_at: settlesAt.getTime(),
        received_at: call.now.getTime(),
        submissions: 1,
        updated_at: call.now.getTime(),
        receiver_id: call.account,
      };
    });
    for (const chunk of inChunks(rows)) await books(trx).insertInto('demobank_debits').values(chunk).execute();
    return results;
  });
  return answered(db, call, 'debit', orders, results);
}

/**
 * The debits' states once no other caller is settling them: settleDueDebits skips the rows another
 * holds, and without waiting for that settlement a debit whose day has come would read as still processing.
 */
async function debitResultsAfterSettlement(db: Kysely<DB>, orderIds: readonly string[]): Promise<Map<string, DebitResult>> {
  if (dialectOf(db) !== 'postgres') return debitResults(db, orderIds);
  return inTransaction(db, (trx) => debitResults(trx, orderIds, { lock: true }));
}

async function debitStatuses(db: Kysely<DB>, orders: readonly DebitOrder[], call: BankCall): Promise<DebitResult[]> {
  await settleDueDebits(db, call.time);
  return answered(
    db,
    call,
    'debit-status',
    orders,
    await debitResultsAfterSettlement(
      db,
      orders.map((order) => order.orderId),
    ),
  );
}

/** DemoBank's direct debits, keeping their books in `db`. */
export function demoBankMandates(db: Kysely<DB>): MandateBank {
  return {
    signMandate: (order, answers, call) => signMandate(db, order, answers, call),
    mandateNews: (cursor, call) => mandateNews(db, cursor, call),
    submitDebits: (orders, call) => submitDebits(db, orders, call),
    debitStatuses: (orders, call) => debitStatuses(db, orders, call),
  };
}

/** How many orders DemoBank received more than once: zero when no debit was ever submitted twice. */
export async function debitsSubmittedTwice(db: Kysely<DB>): Promise<number> {
  const row = await books(db)
    .selectFrom('demobank_debits')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('submissions', '>', 1)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
