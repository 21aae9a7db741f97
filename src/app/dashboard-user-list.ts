// `quipu users list`: who signs in to an account's dashboard, with which role, whether with a
// second factor, and whether disabled.
import type { DashboardRole } from '../domain/dashboard-roles.js';
import { notFound } from '../domain/errors.js';
import { findMerchantRow } from '../store/merchants.js';
import { usersOf } from '../store/users.js';
import type { AppContext } from './context.js';

export async function listDashboardUsers(
  ctx: AppContext,
  receiverId: number,
): Promise<{ email: string; role: DashboardRole; two_factor: boolean; disabled: boolean }[]> {
  if (!(await findMerchantRow(ctx.db, receiverId))) throw notFound('Merchant');
  return (await usersOf(ctx.db, receiverId)).map((user) => ({
    email: user.email,
    role: user.role,
    two_factor: user.totp_secret_enc !== null,
    disabled: user.disabled_at !== null,
  }));
}
