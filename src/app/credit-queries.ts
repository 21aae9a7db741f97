// Reading the recorded bank credits a page at a time; unmatched ones are what an operator has to
// resolve, and every one of them can be listed by following the cursors.
import type { RecordedCredit } from '../domain/bank-credit.js';
import { creditQuery, type CreditListingRequest, encodeCreditCursor } from '../domain/credit-listing.js';
import { listCredits } from '../store/credits.js';
import type { AppContext } from './context.js';

export interface CreditPage {
  credits: RecordedCredit[];
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
}

export async function getCredits(ctx: AppContext, request: CreditListingRequest): Promise<CreditPage> {
  const query = creditQuery(request);
  // One more than asked tells whether another page follows.
  const rows = await listCredits(ctx.db, { ...query, limit: query.limit + 1 });
  const credits = rows.slice(0, query.limit);
  const last = credits.at(-1);
  return {
    credits,
    nextCursor: rows.length > query.limit && last ? encodeCreditCursor({ recordedAt: last.recordedAt.getTime(), creditId: last.creditId }) : null,
  };
}
