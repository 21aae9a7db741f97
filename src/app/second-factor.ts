// The second step of signing in: the code of the user's authenticator, or one of their recovery
// codes, given within a few minutes of the right password. Guesses are counted per user before the
// code is checked (a six-digit code falls to a million guesses, however spread out); a code is good
// once; the halfway session is then replaced by a full one under a new token, so nothing known of
// the halfway one opens a page.
import { newSessionToken } from '../domain/ids.js';
import { secondFactorSubject } from '../domain/sign-in-throttle.js';
import { looksLikeRecoveryCode, matchingStep, PENDING_SECOND_FACTOR_MS, recoveryCodeHash } from '../domain/two-factor.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { deleteSession, findSession, insertSession, type SessionRow } from '../store/dashboard-sessions.js';
import { useRecoveryCode } from '../store/recovery-codes.js';
import { inTransaction } from '../store/transaction.js';
import { findUserById, useTotpStep } from '../store/users.js';
import { reserveAttempt, takeBackAttempt } from './attempt-throttle.js';
import { audit } from './audit.js';
import type { AppContext } from './context.js';
import { type SignInOrigin, sessionOrigin, sessionTokenHash } from './dashboard-sign-in.js';

export type SecondFactorOutcome = { token: string } | { refused: 'wrong-code' | 'expired' } | { refused: 'too-many-attempts'; retryAfterMs: number };

/** Longer than any code or recovery code: refused before anything is counted. */
const MAX_CODE_LENGTH = 64;

/** The halfway session a cookie names, while its code may still be given. */
export async function pendingSession(ctx: AppContext, token: string): Promise<SessionRow | undefined> {
  const session = await findSession(ctx.db, sessionTokenHash(token));
  if (!session?.secondFactorDue) return undefined;
  return wallClockMs(ctx.clock) - session.createdAt < PENDING_SECOND_FACTOR_MS ? session : undefined;
}

async function codeAccepted(ctx: AppContext, userId: string, code: string, now: number): Promise<boolean> {
  const user = await findUserById(ctx.db, userId);
  if (!user?.totp_secret_enc) return false;
  if (looksLikeRecoveryCode(code)) return useRecoveryCode(ctx.db, userId, recoveryCodeHash(userId, code), now);
  const step = matchingStep(ctx.secrets.open(user.totp_secret_enc), code, now, user.totp_last_step === null ? null : Number(user.totp_last_step));
  return step !== undefined && useTotpStep(ctx.db, userId, step);
}

export async function completeSecondFactor(ctx: AppContext, token: string, code: string, origin: SignInOrigin): Promise<SecondFactorOutcome> {
  const session = await pendingSession(ctx, token);
  if (!session) return { refused: 'expired' };
  if (code.length > MAX_CODE_LENGTH) return { refused: 'wrong-code' };
  const now = wallClockMs(ctx.clock);
  const subjects = [secondFactorSubject(session.userId)];
  const waitMs = await reserveAttempt(ctx.db, subjects, now);
  if (waitMs > 0) return { refused: 'too-many-attempts', retryAfterMs: waitMs };
  const accepted = await codeAccepted(ctx, session.userId, code.trim(), now);
  await audit(ctx, {
    actorKind: 'user',
    actor: session.email,
    receiverId: session.receiverId,
    action: 'sign-in.second-factor',
    target: null,
    outcome: accepted ? 'ok' : 'refused',
    address: origin.address,
  });
  if (!accepted) return { refused: 'wrong-code' };

  const fresh = newSessionToken(ctx.random);
  await inTransaction(ctx.db, async (trx) => {
    await deleteSession(trx, session.tokenHash);
    await insertSession(trx, sessionTokenHash(fresh), session.userId, now, sessionOrigin(origin));
  });
  await takeBackAttempt(ctx.db, subjects, () => true);
  return { token: fresh };
}
