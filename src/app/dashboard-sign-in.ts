// Signing in to the dashboard with an email and password. An attempt is counted as a failure
// against its subjects (domain/sign-in-throttle.ts) in one transaction that first checks they allow
// it, before its password is hashed: parallel guesses are each counted, and past a subject's limit
// they wait, right password or not. A right password takes its own failure back. An unknown email
// costs the same scrypt work as a wrong password, so timing does not tell which emails are users;
// and hashing passes through a gate, so a flood of sign-ins is answered "busy" rather than taking
// the thread pool every other answer needs.
import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newSessionToken } from '../domain/ids.js';
import { hashPassword, verifyPassword } from '../domain/password-hash.js';
import { afterFailure, afterSuccess, MAX_SIGN_IN_EMAIL, MAX_SIGN_IN_PASSWORD, signInSubjects, type ThrottleSubject, waitBeforeAttempt } from '../domain/sign-in-throttle.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { insertSession } from '../store/dashboard-sessions.js';
import { deleteThrottle, lockThrottles, writeThrottle } from '../store/sign-in-throttles.js';
import type { DB } from '../store/schema.js';
import { inTransaction } from '../store/transaction.js';
import { findUserByEmail } from '../store/users.js';
import { normalEmail } from './add-dashboard-user.js';
import type { AppContext } from './context.js';
import { WorkGate } from './work-gate.js';

export type SignInOutcome = { token: string } | { refused: 'wrong-credentials' } | { refused: 'too-many-attempts' | 'busy'; retryAfterMs: number };

/** The hash of a session's token: what the sessions table holds. */
export const sessionTokenHash = (token: string) => hash('sha256', token, 'hex');

/** One scrypt at a time leaves the rest of libuv's four threads to the WAL flush and the file system. */
const passwordWork = new WorkGate(1, 32);
const BUSY_RETRY_MS = 1_000;

let decoyHash: Promise<string> | undefined;

export async function signIn(ctx: AppContext, input: { email: string; password: string; address: string }): Promise<SignInOutcome> {
  // No user has such an email or password: refused before anything is hashed or stored.
  if (input.email.length > MAX_SIGN_IN_EMAIL || input.password.length > MAX_SIGN_IN_PASSWORD) return { refused: 'wrong-credentials' };
  const email = normalEmail(input.email);
  const subjects = signInSubjects(email, input.address);
  const now = wallClockMs(ctx.clock);

  const waitMs = await inTransaction(ctx.db, async (trx) => {
    const states = await lockThrottles(trx, subjects.map((s) => s.key));
    const wait = waitBeforeAttempt(subjects.map((s) => states.get(s.key)), now);
    if (wait > 0) return wait;
    for (const subject of subjects) await writeThrottle(trx, subject.key, afterFailure(subject.kind, states.get(subject.key), now));
    return 0;
  });
  if (waitMs > 0) return { refused: 'too-many-attempts', retryAfterMs: waitMs };

  const user = await findUserByEmail(ctx.db, email);
  const matches = await passwordWork.run(async () => {
    decoyHash ??= hashPassword('', ctx.random(16));
    return verifyPassword(input.password, user?.password_hash ?? (await decoyHash));
  });
  if (matches === undefined) {
    await takeBackAttempt(ctx.db, subjects, 'unchecked');
    return { refused: 'busy', retryAfterMs: BUSY_RETRY_MS };
  }
  if (!user || !matches) return { refused: 'wrong-credentials' };

  const token = newSessionToken(ctx.random);
  await inTransaction(ctx.db, async (trx) => {
    await insertSession(trx, sessionTokenHash(token), user.user_id, now);
    await takeBackAttempt(trx, subjects, 'right');
  });
  return { token };
}

/** The failure an attempt was counted as, taken back: its password was never checked, or was right (which also clears its pair). */
async function takeBackAttempt(db: Kysely<DB>, subjects: readonly ThrottleSubject[], why: 'unchecked' | 'right'): Promise<void> {
  await inTransaction(db, async (trx) => {
    const states = await lockThrottles(trx, subjects.map((s) => s.key));
    for (const subject of subjects) {
      const state = states.get(subject.key);
      if (subject.kind === 'pair' && why === 'right') await deleteThrottle(trx, subject.key);
      else if (state) await writeThrottle(trx, subject.key, afterSuccess(state));
    }
  });
}
