// `quipu users set-role`: a dashboard user's role changes, and every session they have ends with
// it, so that no page opened under the old role keeps acting under it: they sign in again.
import type { DashboardRole } from '../domain/dashboard-roles.js';
import { notFound } from '../domain/errors.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { deleteSessionsOfUser } from '../store/dashboard-sessions.js';
import { inTransaction } from '../store/transaction.js';
import { findUserByEmail, setRole } from '../store/users.js';
import { normalEmail } from './add-dashboard-user.js';
import type { AppContext } from './context.js';

export async function changeDashboardRole(ctx: AppContext, email: string, role: DashboardRole): Promise<{ email: string; role: DashboardRole }> {
  const user = await findUserByEmail(ctx.db, normalEmail(email));
  if (!user) throw notFound('Dashboard user');
  await inTransaction(ctx.db, async (trx) => {
    // A user's changes are dated in real time, as their sessions are: no account's clock applies.
    await setRole(trx, user.user_id, role, wallClockMs(ctx.clock));
    await deleteSessionsOfUser(trx, user.user_id);
  });
  return { email: user.email, role };
}
