// Signing in to the dashboard with an email and password. Failures are counted per email and per
// client address (domain/dashboard-session.ts); past a limit, sign-ins are refused before the
// password is even checked. An unknown email costs the same scrypt work as a wrong password, so
// timing does not tell which emails are users.
import { hash } from 'node:crypto';
import { SIGN_IN_WINDOW_MS, signInBlocked, type SignInSubject } from '../domain/dashboard-session.js';
import { newSessionToken } from '../domain/ids.js';
import { hashPassword, verifyPassword } from '../domain/password-hash.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { clearSignInFailures, countSignInFailures, insertSession, recordSignInFailure } from '../store/dashboard-sessions.js';
import { findUserByEmail } from '../store/users.js';
import { normalEmail } from './add-dashboard-user.js';
import type { AppContext } from './context.js';

export type SignInOutcome = { token: string } | { refused: 'wrong-credentials' | 'too-many-attempts' };

/** The hash of a session's token: what the sessions table holds. */
export const sessionTokenHash = (token: string) => hash('sha256', token, 'hex');

let decoyHash: Promise<string> | undefined;

export async function signIn(ctx: AppContext, input: { email: string; password: string; address: string }): Promise<SignInOutcome> {
  const email = normalEmail(input.email);
  const subjects: SignInSubject[] = [`email:${email}`, `address:${input.address}`];
  const now = wallClockMs(ctx.clock);
  const since = now - SIGN_IN_WINDOW_MS;
  const failures = { email: await countSignInFailures(ctx.db, subjects[0]!, since), address: await countSignInFailures(ctx.db, subjects[1]!, since) };
  if (signInBlocked(failures)) return { refused: 'too-many-attempts' };
  const user = await findUserByEmail(ctx.db, email);
  decoyHash ??= hashPassword('', ctx.random(16));
  const matches = await verifyPassword(input.password, user?.password_hash ?? (await decoyHash));
  if (!user || !matches) {
    await recordSignInFailure(ctx.db, subjects, now);
    return { refused: 'wrong-credentials' };
  }
  const token = newSessionToken(ctx.random);
  await insertSession(ctx.db, sessionTokenHash(token), user.user_id, now);
  await clearSignInFailures(ctx.db, subjects[0]!);
  return { token };
}
