// The dashboard's home: the last 30 days' payments per currency, and what needs the merchant's
// attention (messages that exhausted their retries, transfers waiting for their bank).
import { foldTotals, periodStart, type CurrencyTotals } from '../domain/payment-totals.js';
import type { Merchant } from '../domain/merchant.js';
import type { PaymentAttempt } from '../domain/payment-attempt.js';
import { hourlyTotals, uncertainAttemptsOf } from '../store/account-overview.js';
import { listMessageRows } from '../store/messages.js';
import type { MessageRow } from '../store/schema.js';
import type { AppContext } from './context.js';

export const OVERVIEW_DAYS = 30;
const ATTENTION_LIMIT = 10;

export interface AccountOverview {
  totals: CurrencyTotals[];
  exhausted: MessageRow[];
  uncertain: PaymentAttempt[];
}

export async function accountOverview(ctx: AppContext, merchant: Merchant): Promise<AccountOverview> {
  const now = ctx.clock.now().getTime();
  const start = periodStart(now, OVERVIEW_DAYS);
  const [rows, exhausted, uncertain] = await Promise.all([
    hourlyTotals(ctx.db, merchant.receiverId, start),
    listMessageRows(ctx.db, { receiverId: merchant.receiverId, status: 'exhausted', limit: ATTENTION_LIMIT }),
    uncertainAttemptsOf(ctx.db, merchant.receiverId, ATTENTION_LIMIT),
  ]);
  return { totals: foldTotals(rows, start, now), exhausted, uncertain };
}
