// Signing in to the dashboard with an email and password. An attempt is counted as a failure
// against its subjects (domain/sign-in-throttle.ts, app/attempt-throttle.ts) before its password is
// hashed: parallel guesses are each counted, and past a subject's limit they wait, right password
// or not. A right password takes its own failure back; a user with a second factor then holds a
// session that opens nothing until the code is given (second-factor.ts). An unknown email
// costs the same scrypt work as a wrong password, so timing does not tell which emails are users
// (a disabled user is answered as a wrong password is); and hashing passes through a gate, so a
// flood of sign-ins is answered "busy" rather than taking the thread pool every other answer needs.
import { hash } from 'node:crypto';
import type { AuditOutcome } from '../domain/audit.js';
import { newSessionToken } from '../domain/ids.js';
import { MAX_USER_AGENT, passwordExpired } from '../domain/dashboard-session.js';
import { hashPassword, verifyPassword, weakerThan } from '../domain/password-hash.js';
import { MAX_SIGN_IN_EMAIL, MAX_SIGN_IN_PASSWORD, signInSubjects, type ThrottleSubject } from '../domain/sign-in-throttle.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { insertSession } from '../store/dashboard-sessions.js';
import { findUserByEmail, upgradePasswordHash } from '../store/users.js';
import { normalEmail } from './add-dashboard-user.js';
import { reserveAttempt, takeBackAttempt } from './attempt-throttle.js';
import { audit } from './audit.js';
import type { AppContext } from './context.js';
import { WorkGate } from './work-gate.js';

export type SignInOutcome =
  | { token: string; secondFactorDue: boolean }
  | { refused: 'wrong-credentials' | 'two-factor-required' | 'password-expired' }
  | { refused: 'too-many-attempts' | 'busy'; retryAfterMs: number };

/** The hash of a session's token: what the sessions table holds. */
export const sessionTokenHash = (token: string) => hash('sha256', token, 'hex');

/** One scrypt at a time leaves the rest of libuv's four threads to the WAL flush and the file system. */
const passwordWork = new WorkGate(1, 32);
const BUSY_RETRY_MS = 1_000;

export type GuardedAnswer<T> = { answer: T } | { refused: 'too-many-attempts' | 'busy'; retryAfterMs: number };

/**
 * Scrypt work on a password someone may be guessing (signing in, changing one's password): the
 * attempt is counted against `subjects` first (past their limit it waits), then the work runs
 * through the hashing gate (full, it is answered "busy" and the attempt taken back).
 */
export async function guardedPasswordWork<T>(
  ctx: AppContext,
  subjects: readonly ThrottleSubject[],
  now: number,
  work: () => Promise<T>,
): Promise<GuardedAnswer<T>> {
  const waitMs = await reserveAttempt(ctx.db, subjects, now);
  if (waitMs > 0) return { refused: 'too-many-attempts', retryAfterMs: waitMs };
  const done = await passwordWork.run(async () => ({ answer: await work() }));
  if (done !== undefined) return done;
  await takeBackAttempt(ctx.db, subjects, () => false);
  return { refused: 'busy', retryAfterMs: BUSY_RETRY_MS };
}

/** A hash of nothing per cost, for unknown emails to cost what a wrong password costs. */
const decoyHashes = new Map<number, Promise<string>>();

/** What a browser is, as kept with its session. */
export interface SignInOrigin {
  address: string;
  userAgent: string | undefined;
}

export const sessionOrigin = (origin: SignInOrigin) => ({ address: origin.address, userAgent: origin.userAgent?.slice(0, MAX_USER_AGENT) ?? null });

export async function signIn(ctx: AppContext, input: { email: string; password: string } & SignInOrigin): Promise<SignInOutcome> {
  // No user has such an email or password: refused before anything is hashed or stored.
  if (input.email.length > MAX_SIGN_IN_EMAIL || input.password.length > MAX_SIGN_IN_PASSWORD) return { refused: 'wrong-credentials' };
  const email = normalEmail(input.email);
  const subjects = signInSubjects(email, input.address);
  const now = wallClockMs(ctx.clock);
  const cost = ctx.config.passwordHashCost;

  const user = await findUserByEmail(ctx.db, email);
  const checked = await guardedPasswordWork(ctx, subjects, now, async () => {
    if (!decoyHashes.has(cost)) decoyHashes.set(cost, hashPassword('', ctx.random(16), cost));
    const stored = user?.password_hash ?? (await decoyHashes.get(cost)!);
    const matches = await verifyPassword(input.password, stored);
    // A hash made at a lower cost is made again now that its password is known (docs/security.md).
    const upgraded = matches && weakerThan(stored, cost) ? await hashPassword(input.password, ctx.random(16), cost) : undefined;
    return { matches, upgraded };
  });
  if ('refused' in checked) return checked;
  const { matches, upgraded } = checked.answer;
  // Each password checked is audited; attempts answered before (too long, waiting, busy) are not,
  // so a flood of them writes nothing.
  const record = (outcome: AuditOutcome) =>
    audit(ctx, {
      actorKind: 'user',
      actor: email,
      receiverId: user ? Number(user.receiver_id) : null,
      action: 'sign-in',
      target: null,
      outcome,
      address: input.address,
    });
  // A disabled user is answered as a wrong password is, and their failure stays counted.
  if (!user || !matches || user.disabled_at !== null) {
    await record('refused');
    return { refused: 'wrong-credentials' };
  }
  // A right password takes its failure back and clears its pair, whatever follows.
  await takeBackAttempt(ctx.db, subjects, (subject) => subject.kind === 'pair');
  if (upgraded !== undefined) await upgradePasswordHash(ctx.db, user.user_id, user.password_hash, upgraded);
  // Only someone who knows the generated password learns that it expired.
  if (passwordExpired(user.password_expires_at === null ? null : Number(user.password_expires_at), now)) {
    await record('refused');
    return { refused: 'password-expired' };
  }
  const secondFactorDue = user.totp_secret_enc !== null;
  if (!secondFactorDue && ctx.config.dashboardTwoFactor === 'required') {
    await record('refused');
    return { refused: 'two-factor-required' };
  }

  // With a second factor, the session opens no page until its code is given (second-factor.ts).
  const token = newSessionToken(ctx.random);
  await insertSession(ctx.db, sessionTokenHash(token), user.user_id, now, sessionOrigin(input), secondFactorDue);
  await record('ok');
  return { token, secondFactorDue };
}
