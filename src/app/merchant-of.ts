// The account a payment belongs to, read through the context's own db: inside a transaction the
// cached directory would query the base connection, which on SQLite waits for this very transaction.
import { notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { findMerchantRow } from '../store/merchants.js';
import type { AppContext } from './context.js';
import { toMerchant } from './merchant-directory.js';

export async function merchantOf(ctx: AppContext, receiverId: number): Promise<Merchant> {
  const row = await findMerchantRow(ctx.db, receiverId);
  if (!row) throw notFound('Merchant');
  return toMerchant(row, ctx.secrets);
}
