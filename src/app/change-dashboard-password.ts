// A signed-in dashboard user changes their own password: the current one is checked first, counted
// against the same throttle as sign-in (a stolen session cannot guess it faster), the new one must
// pass the password rules (domain/password-policy.ts) and differ from the current one, and the
// change ends every session the user has and opens a new one for this browser under a new token.
// A generated password is replaced this way at its first sign-in (docs/dashboard.md).
import { newSessionToken } from '../domain/ids.js';
import { hashPassword, verifyPassword } from '../domain/password-hash.js';
import { type PasswordProblem, passwordProblem } from '../domain/password-policy.js';
import { MAX_SIGN_IN_PASSWORD, signInSubjects } from '../domain/sign-in-throttle.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { deleteSessionsOfUser, insertSession } from '../store/dashboard-sessions.js';
import { inTransaction } from '../store/transaction.js';
import { findUserById, setPasswordHash } from '../store/users.js';
import { takeBackAttempt } from './attempt-throttle.js';
import type { AppContext } from './context.js';
import type { DashboardSession } from './dashboard-sessions.js';
import { guardedPasswordWork, type SignInOrigin, sessionOrigin, sessionTokenHash } from './dashboard-sign-in.js';

export type PasswordChangeOutcome =
  | { token: string }
  | { refused: 'wrong-password' | 'same-password' }
  | { refused: 'weak-password'; problem: PasswordProblem }
  | { refused: 'too-many-attempts' | 'busy'; retryAfterMs: number };

export async function changeDashboardPassword(
  ctx: AppContext,
  session: DashboardSession,
  input: { current: string; next: string } & SignInOrigin,
): Promise<PasswordChangeOutcome> {
  const problem = passwordProblem(input.next, { email: session.email, accountName: session.merchant.name });
  if (problem) return { refused: 'weak-password', problem };
  if (input.current.length > MAX_SIGN_IN_PASSWORD) return { refused: 'wrong-password' };
  if (input.next === input.current) return { refused: 'same-password' };
  const now = wallClockMs(ctx.clock);
  const subjects = signInSubjects(session.email, input.address);
  const user = await findUserById(ctx.db, session.userId);
  const checked = await guardedPasswordWork(ctx, subjects, now, async () => {
    if (!user || !(await verifyPassword(input.current, user.password_hash))) return null;
    return hashPassword(input.next, ctx.random(16), ctx.config.passwordHashCost);
  });
  if ('refused' in checked) return checked;
  const hash = checked.answer;
  if (hash === null) return { refused: 'wrong-password' };
  await takeBackAttempt(ctx.db, subjects, (subject) => subject.kind === 'pair');
  const token = newSessionToken(ctx.random);
  await inTransaction(ctx.db, async (trx) => {
    // Chosen by the user: it does not expire.
    await setPasswordHash(trx, session.userId, hash, now, null);
    await deleteSessionsOfUser(trx, session.userId);
    await insertSession(trx, sessionTokenHash(token), session.userId, now, sessionOrigin(input));
  });
  return { token };
}
