// Bank credit rows: every credit reported to a collection account, matched or not.
import type { Kysely } from 'kysely';
import { creditFields, type RecordedCredit } from '../domain/bank-credit.js';
import type { CreditQuery } from '../domain/credit-listing.js';
import { recordOf } from './columns-of.js';
import { inChunks } from './group-commit.js';
import type { BankCreditRow, BankCreditsTable, DB } from './schema.js';

const toCredit = (row: BankCreditRow) => recordOf<RecordedCredit>(row, { creditedAt: 'instant', recordedAt: 'instant' });

export function creditRow(credit: RecordedCredit): BankCreditsTable {
  const fields = creditFields(credit);
  return { ...fields, credited_at: fields.credited_at.getTime(), receiver_id: credit.receiverId, recorded_at: fields.recorded_at.getTime() };
}

/**
 * Inserts the credits whose movement (account, bank_reference) is not recorded yet, and answers the
 * ids of those it inserted: the others were, by an earlier import or one that commits first (it
 * waits for it). Sorted by movement, so two imports of overlapping statements wait for each other
 * in the same order instead of deadlocking.
 */
export async function insertCreditsOnce(db: Kysely<DB>, credits: readonly RecordedCredit[]): Promise<Set<string>> {
  const sorted = [...credits].sort((a, b) => (a.account === b.account ? compare(a.bankReference, b.bankReference) : compare(a.account, b.account)));
  const inserted = await Promise.all(
    inChunks(sorted).map((chunk) =>
      db
        .insertInto('bank_credits')
        .values(chunk.map(creditRow))
        .onConflict((oc) => oc.columns(['account', 'bank_reference']).doNothing())
        .returning('credit_id')
        .execute(),
    ),
  );
  return new Set(inserted.flat().map((row) => row.credit_id));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** How one recorded credit was settled: the payment it paid (its reference), or why it matched none. */
export type Settlement = { creditId: string; matched: true } | { creditId: string; matched: false; reason: string };

/** Records the settlements of credits inserted unmatched: one statement for the matched, one per reason for the others. */
export async function settleCredits(db: Kysely<DB>, settlements: readonly Settlement[]): Promise<void> {
  const matched = settlements.filter((s) => s.matched).map((s) => s.creditId);
  const byReason = new Map<string, string[]>();
  for (const s of settlements) if (!s.matched) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.creditId]);
  for (const chunk of inChunks(matched)) {
    await db
      .updateTable('bank_credits')
      .set((eb) => ({
        status: 'matched',
        reason: null,
        payment_id: eb.ref('reference'),
        receiver_id: eb.selectFrom('payments').select('payments.receiver_id').whereRef('payments.payment_id', '=', 'bank_credits.reference'),
      }))
      .where('credit_id', 'in', chunk)
      .execute();
  }
  for (const [reason, ids] of byReason) {
    for (const chunk of inChunks(ids))
      await db.updateTable('bank_credits').set({ status: 'unmatched', reason, payment_id: null, receiver_id: null }).where('credit_id', 'in', chunk).execute();
  }
}

/** Newest recorded first, after `query.after` (the last credit of the previous page). */
export async function listCredits(db: Kysely<DB>, query: CreditQuery): Promise<RecordedCredit[]> {
  const { filter, after } = query;
  const rows = await db
    .selectFrom('bank_credits')
    .selectAll()
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(filter.account !== undefined, (q) => q.where('account', '=', filter.account!))
    .$if(filter.creditedFrom !== undefined, (q) => q.where('credited_at', '>=', filter.creditedFrom!.getTime()))
    .$if(filter.creditedTo !== undefined, (q) => q.where('credited_at', '<', filter.creditedTo!.getTime()))
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb.or([eb('recorded_at', '<', after!.recordedAt), eb.and([eb('recorded_at', '=', after!.recordedAt), eb('credit_id', '<', after!.creditId)])]),
      ),
    )
    .orderBy('recorded_at', 'desc')
    .orderBy('credit_id', 'desc')
    .limit(query.limit)
    .execute();
  return rows.map(toCredit);
}
