// `quipu users disable|enable|remove|end-sessions`: the operator takes a person's access away (for a
// while, or for good) or ends sessions without changing anything else. Every session of a disabled
// or removed user ends in the same transaction; a disabled user's sign-in is answered as a wrong
// password is (dashboard-sign-in.ts) until they are enabled again.
import { notFound } from '../domain/errors.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { deleteAllSessions, deleteSessionsOfUser } from '../store/dashboard-sessions.js';
import { inTransaction } from '../store/transaction.js';
import { deleteUser, findUserByEmail, setDisabled } from '../store/users.js';
import { normalEmail } from './add-dashboard-user.js';
import type { AppContext } from './context.js';

async function userOf(ctx: AppContext, email: string) {
  const user = await findUserByEmail(ctx.db, normalEmail(email));
  if (!user) throw notFound('Dashboard user');
  return user;
}

export async function setDashboardUserDisabled(
  ctx: AppContext,
  email: string,
  disabled: boolean,
): Promise<{ email: string; disabled: boolean; sessions_ended: number }> {
  const user = await userOf(ctx, email);
  const now = wallClockMs(ctx.clock);
  const ended = await inTransaction(ctx.db, async (trx) => {
    // Disabled again, it keeps the first instant.
    await setDisabled(trx, user.user_id, disabled ? (user.disabled_at === null ? now : Number(user.disabled_at)) : null, now);
    return disabled ? deleteSessionsOfUser(trx, user.user_id) : 0;
  });
  return { email: user.email, disabled, sessions_ended: ended };
}

export async function removeDashboardUser(ctx: AppContext, email: string): Promise<{ email: string; removed: true }> {
  const user = await userOf(ctx, email);
  await inTransaction(ctx.db, (trx) => deleteUser(trx, user.user_id));
  return { email: user.email, removed: true };
}

/** Ends one user's sessions (`email`), or every user's (undefined). */
export async function endDashboardSessions(ctx: AppContext, email: string | undefined): Promise<{ email?: string; sessions_ended: number }> {
  if (email === undefined) return { sessions_ended: await deleteAllSessions(ctx.db) };
  const user = await userOf(ctx, email);
  return { email: user.email, sessions_ended: await deleteSessionsOfUser(ctx.db, user.user_id) };
}
