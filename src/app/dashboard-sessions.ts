// The dashboard session a request's cookie names: its user, role and account, while it is alive
// (idle and absolute limits on the wall clock); signing out deletes it, so the cookie is worth
// nothing afterwards even if it was copied, and signing out everywhere deletes every session of
// the user. A user sees their own sessions (opened when, last seen when, from where) and ends one
// or all the others after giving their password again: a session left open on a shared computer
// cannot end the owner's.
import { hash } from 'node:crypto';
import type { DashboardRole } from '../domain/dashboard-roles.js';
import { sessionAlive, SESSION_TOUCH_MS } from '../domain/dashboard-session.js';
import type { Merchant } from '../domain/merchant.js';
import { MAX_SIGN_IN_PASSWORD, signInSubjects } from '../domain/sign-in-throttle.js';
import { verifyPassword } from '../domain/password-hash.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { deleteSession, deleteSessionsOfUser, findSession, sessionsOfUser, touchSession } from '../store/dashboard-sessions.js';
import { findUserById } from '../store/users.js';
import { takeBackAttempt } from './attempt-throttle.js';
import type { AppContext } from './context.js';
import { guardedPasswordWork, sessionTokenHash } from './dashboard-sign-in.js';

export interface DashboardSession {
  userId: string;
  email: string;
  role: DashboardRole;
  merchant: Merchant;
  /** The hash of this session's token: which of the user's sessions is this browser's. */
  tokenHash: string;
  /** The password is a generated one: nothing opens but the page that replaces it. */
  passwordChangeDue: boolean;
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
  return (
    merchant && { userId: session.userId, email: session.email, role: session.role, merchant, tokenHash, passwordChangeDue: session.passwordExpiresAt !== null }
  );
}

export async function signOut(ctx: AppContext, token: string): Promise<void> {
  await deleteSession(ctx.db, sessionTokenHash(token));
}

/** Ends every session of the session's user, this one included: a lost laptop, a shared computer. */
export async function signOutEverywhere(ctx: AppContext, session: DashboardSession): Promise<void> {
  await deleteSessionsOfUser(ctx.db, session.userId);
}

/** One of a user's sessions as its page shows it; `id` names it in forms without its token's hash. */
export interface OwnSession {
  id: string;
  current: boolean;
  /** Past the password, waiting for the second factor's code. */
  halfway: boolean;
  createdAt: number;
  lastSeenAt: number;
  address: string | null;
  userAgent: string | null;
}

const publicId = (tokenHash: string) => hash('sha256', `dashboard session\n${tokenHash}`, 'hex').slice(0, 32);

/** The user's live sessions, newest first; ended ones found on the way are deleted. */
export async function ownSessions(ctx: AppContext, session: DashboardSession): Promise<OwnSession[]> {
  const now = wallClockMs(ctx.clock);
  const live: OwnSession[] = [];
  for (const row of await sessionsOfUser(ctx.db, session.userId)) {
    if (!sessionAlive(row, now)) {
      await deleteSession(ctx.db, row.tokenHash);
      continue;
    }
    const { tokenHash, secondFactorDue, ...shown } = row;
    live.push({ id: publicId(tokenHash), current: tokenHash === session.tokenHash, halfway: secondFactorDue, ...shown });
  }
  return live;
}

export type EndSessionsOutcome =
  { ended: number } | { refused: 'wrong-password' | 'unknown-session' } | { refused: 'too-many-attempts' | 'busy'; retryAfterMs: number };

/**
 * Ends one of the user's other sessions (`which` its id) or all of them but this one (`others`),
 * once the password is given again; it counts against the sign-in throttle as a sign-in does.
 */
export async function endOwnSessions(
  ctx: AppContext,
  session: DashboardSession,
  input: { which: string; password: string; address: string },
): Promise<EndSessionsOutcome> {
  if (input.password.length > MAX_SIGN_IN_PASSWORD) return { refused: 'wrong-password' };
  const now = wallClockMs(ctx.clock);
  const subjects = signInSubjects(session.email, input.address);
  const user = await findUserById(ctx.db, session.userId);
  const checked = await guardedPasswordWork(ctx, subjects, now, async () => user !== undefined && verifyPassword(input.password, user.password_hash));
  if ('refused' in checked) return checked;
  if (!checked.answer) return { refused: 'wrong-password' };
  await takeBackAttempt(ctx.db, subjects, (subject) => subject.kind === 'pair');
  if (input.which === 'others') return { ended: await deleteSessionsOfUser(ctx.db, session.userId, session.tokenHash) };
  const target = (await sessionsOfUser(ctx.db, session.userId)).find((row) => publicId(row.tokenHash) === input.which);
  if (!target) return { refused: 'unknown-session' };
  await deleteSession(ctx.db, target.tokenHash);
  return { ended: 1 };
}
