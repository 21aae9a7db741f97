// Reading the recorded bank credits; unmatched ones are what an operator has to resolve.
import type { CreditStatus, RecordedCredit } from '../domain/bank-credit.js';
import { listCredits } from '../store/credits.js';
import type { AppContext } from './context.js';

export async function getCredits(ctx: AppContext, filter: { status?: CreditStatus; limit?: number }): Promise<RecordedCredit[]> {
  return listCredits(ctx.db, { status: filter.status, limit: filter.limit ?? 100 });
}
