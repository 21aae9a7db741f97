// The dashboard session a request's cookie names: its user, role and account, while it is alive
// (idle and absolute limits on the wall clock); signing out deletes it, so the cookie is worth
// nothing afterwards even if it was copied, and signing out everywhere deletes every session of
// the user.
import type { DashboardRole } from '../domain/dashboard-roles.js';
import { sessionAlive, SESSION_TOUCH_MS } from '../domain/dashboard-session.js';
import type { Merchant } from '../domain/merchant.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { deleteSession, deleteSessionsOfUser, findSession, touchSession } from '../store/dashboard-sessions.js';
import type { AppContext } from './context.js';
import { sessionTokenHash } from './dashboard-sign-in.js';

export interface DashboardSession {
  userId: string;
  email: string;
  role: DashboardRole;
  merchant: Merchant;
}

export async function currentSession(ctx: AppContext, token: string): Promise<DashboardSession | undefined> {
  const tokenHash = sessionTokenHash(token);
  const session = await findSession(ctx.db, tokenHash);
  // Halfway signed in (the second factor's code is due): no page opens.
  if (!session || session.secondFactorDue) return undefined;
  const now = wallClockMs(ctx.clock);
  if (!sessionAlive(session, now)) {
    await deleteSession(ctx.db, tokenHash);
    return undefined;
  }
  if (now - session.lastSeenAt >= SESSION_TOUCH_MS) await touchSession(ctx.db, tokenHash, now);
  const merchant = await ctx.merchants.byReceiverId(session.receiverId);
  return merchant && { userId: session.userId, email: session.email, role: session.role, merchant };
}

export async function signOut(ctx: AppContext, token: string): Promise<void> {
  await deleteSession(ctx.db, sessionTokenHash(token));
}

/** Ends every session of the session's user, this one included: a lost laptop, a shared computer. */
export async function signOutEverywhere(ctx: AppContext, session: DashboardSession): Promise<void> {
  await deleteSessionsOfUser(ctx.db, session.userId);
}
