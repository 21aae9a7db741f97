// `quipu users reset-password`: a new generated password, returned once, which expires and must be
// replaced at its first sign-in like any initial password; every session the user had ends, so
// whoever knew the old password is signed out too.
import { notFound } from '../domain/errors.js';
import { deleteSessionsOfUser } from '../store/dashboard-sessions.js';
import { inTransaction } from '../store/transaction.js';
import { findUserByEmail, setPasswordHash } from '../store/users.js';
import { type DashboardCredentials, normalEmail, passwordAndHash } from './add-dashboard-user.js';
import type { AppContext } from './context.js';

export async function resetDashboardPassword(ctx: AppContext, email: string): Promise<DashboardCredentials> {
  const user = await findUserByEmail(ctx.db, normalEmail(email));
  if (!user) throw notFound('Dashboard user');
  const password = await passwordAndHash(ctx, { context: { email: user.email } });
  await inTransaction(ctx.db, async (trx) => {
    await setPasswordHash(trx, user.user_id, password.hash, ctx.clock.now().getTime(), password.expiresAt);
    await deleteSessionsOfUser(trx, user.user_id);
  });
  return { email: user.email, password: password.password };
}
