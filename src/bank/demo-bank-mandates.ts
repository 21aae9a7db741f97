// DemoBank's direct debits: the mandates payers sign at it and the debits Quipu sends under them,
// kept in its books (tables demobank_mandates and demobank_debits, migration 014) like its
// transfers. A simulated bank has no clock of its own: what falls due (a pending mandate's
// approval, a debit's settlement) happens the next time DemoBank is asked anything about it, on
// Quipu's developer clock. The triggers are the scenario table's (demo-bank-scenarios.ts).
import { onAccountClock, type ScanTime } from '../store/account-time.js';
import type { Kysely } from 'kysely';
import type { BankCredit } from '../domain/bank-credit.js';
import { nextBusinessDay } from '../domain/business-days.js';
import { parseRut } from '../domain/rut.js';
import { dialectOf } from '../store/database.js';
import type { DB } from '../store/schema.js';
import { lockSetting } from '../store/setting-lock.js';
import { writeSetting } from '../store/settings.js';
import { inTransaction } from '../store/transaction.js';
import type { BankCall, DebitOrder, DebitResult, MandateBank, MandateNews, MandateNewsReport, MandateOrder, MandateResult } from './connector.js';
import { bookTransfer, demoBankCredit, demoHolderName, findEntry, journalRequest } from './demo-bank-books.js';
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

/** Settles (or fails) one debit in `trx`, booking its credit on the collection account when the money moves. */
async function settle(trx: Kysely<DB>, row: DemoBankDebitsTable, now: Date, forced?: 'settle' | 'fail'): Promise<void> {
  const mandate = await findMandateRow(trx, row.mandate_id);
  // Failed by hand, a debit fails for the reason its settlement day would have given, if any.
  const failure = forced === 'fail' ? (settlementFailure(mandate) ?? DEBIT_REFUSED) : forced === 'settle' ? undefined : settlementFailure(mandate);
  if (failure !== undefined || !mandate) {
    await books(trx)
      .updateTable('demobank_debits')
      .set({ state: 'failed', message: failure ?? MANDATE_NOT_ACTIVE, updated_at: now.getTime() })
      .where('order_id', '=', row.order_id)
      .execute();
    return;
  }
  const order = JSON.parse(row.order_json) as DebitOrder;
  await bookTransfer(trx, row.order_id, { state: 'executed', credit: creditOf(order, mandate, now) }, now, true);
  await books(trx).updateTable('demobank_debits').set({ state: 'settled', updated_at: now.getTime() }).where('order_id', '=', row.order_id).execute();
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
      for (const row of due) await settle(trx, row, new Date(Number(row.settles_at)));
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
    await settle(trx, row, now, decision);
    return true;
  });
}

async function debitResult(db: Kysely<DB>, orderId: string): Promise<DebitResult> {
  const row = await books(db).selectFrom('demobank_debits').selectAll().where('order_id', '=', orderId).executeTakeFirst();
  if (!row) return { status: 'unknown' };
  if (row.state === 'processing') return { status: 'accepted', settlesAt: new Date(Number(row.settles_at)) };
  if (row.state === 'failed') return { status: 'failed', message: row.message ?? DEBIT_REFUSED };
  const entry = await findEntry(db, orderId);
  if (entry?.state !== 'executed') throw new Error(`DemoBank's books have no credit for settled debit ${orderId}`);
  return { status: 'settled', credit: entry.credit };
}

async function answered(db: Kysely<DB>, call: BankCall, operation: 'debit' | 'debit-status', order: DebitOrder, result: DebitResult): Promise<DebitResult> {
  await journalRequest(db, { askedAt: call.now, operation, orderId: order.orderId, paymentId: order.reference, cursor: null, answer: result.status });
  return result;
}

async function submitDebit(db: Kysely<DB>, order: DebitOrder, call: BankCall): Promise<DebitResult> {
  const result = await inTransaction(db, async (trx): Promise<DebitResult> => {
    // The same order twice is one debit: the second submission gets the first one's answer, and is counted.
    const known = await debitResult(trx, order.orderId);
    if (known.status !== 'unknown') {
      await books(trx)
        .updateTable('demobank_debits')
        .set((eb) => ({ submissions: eb('submissions', '+', 1) }))
        .where('order_id', '=', order.orderId)
        .execute();
      return known;
    }
    const mandate = await findMandateRow(trx, order.mandateId);
    const refusal =
      mandate?.state === 'revoked'
        ? MANDATE_REVOKED
        : mandate?.state !== 'active'
          ? MANDATE_NOT_ACTIVE
          : order.amount > Number(mandate.max_amount)
            ? OVER_MAXIMUM
            : undefined;
    const settlesAt = nextBusinessDay(call.now);
    await books(trx)
      .insertInto('demobank_debits')
      .values({
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
      })
      .execute();
    return refusal ? { status: 'failed', message: refusal } : { status: 'accepted', settlesAt };
  });
  return answered(db, call, 'debit', order, result);
}

/**
 * A debit's state once no other caller is settling it: settleDueDebits skips the rows another holds,
 * and without waiting for that settlement a debit whose day has come would read as still processing.
 */
async function debitResultAfterSettlement(db: Kysely<DB>, orderId: string): Promise<DebitResult> {
  if (dialectOf(db) !== 'postgres') return debitResult(db, orderId);
  return inTransaction(db, async (trx) => {
    await books(trx).selectFrom('demobank_debits').select('order_id').where('order_id', '=', orderId).forShare().execute();
    return debitResult(trx, orderId);
  });
}

async function debitStatus(db: Kysely<DB>, order: DebitOrder, call: BankCall): Promise<DebitResult> {
  await settleDueDebits(db, call.time);
  return answered(db, call, 'debit-status', order, await debitResultAfterSettlement(db, order.orderId));
}

/** DemoBank's direct debits, keeping their books in `db`. */
export function demoBankMandates(db: Kysely<DB>): MandateBank {
  return {
    signMandate: (order, answers, call) => signMandate(db, order, answers, call),
    mandateNews: (cursor, call) => mandateNews(db, cursor, call),
    submitDebit: (order, call) => submitDebit(db, order, call),
    debitStatus: (order, call) => debitStatus(db, order, call),
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
