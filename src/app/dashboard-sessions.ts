// The dashboard session a request's cookie names: its user and account, while it is alive (idle
// and absolute limits on the wall clock); signing out deletes it, so the cookie is worth nothing
// afterwards even if it was copied.
import { sessionAlive, SESSION_TOUCH_MS } from '../domain/dashboard-session.js';
import type { Merchant } from '../domain/merchant.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { deleteSession, findSession, touchSession } from '../store/dashboard-sessions.js';
import type { AppContext } from './context.js';
import { sessionTokenHash } from './dashboard-sign-in.js';

export interface DashboardSession {
  email: string;
  merchant: Merchant;
}

export async function currentSession(ctx: AppContext, token: string): Promise<DashboardSession | undefined> {
  const tokenHash = sessionTokenHash(token);
  const session = await findSession(ctx.db, tokenHash);
  if (!session) return undefined;
  const now = wallClockMs(ctx.clock);
  if (!sessionAlive(session, now)) {
    await deleteSession(ctx.db, tokenHash);
    return undefined;
  }
  if (now - session.lastSeenAt >= SESSION_TOUCH_MS) await touchSession(ctx.db, tokenHash, now);
  const merchant = await ctx.merchants.byReceiverId(session.receiverId);
  return merchant && { email: session.email, merchant };
}

export async function signOut(ctx: AppContext, token: string): Promise<void> {
  await deleteSession(ctx.db, sessionTokenHash(token));
}
