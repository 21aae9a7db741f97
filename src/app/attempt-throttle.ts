// The throttle of guesses (domain/sign-in-throttle.ts) as sign-in, its second factor, a password
// change and the operator's token use it: an attempt is counted as a failure against its subjects,
// in one transaction that locks their rows and first checks they allow it, before the secret is
// checked, so parallel guesses are each counted; a right answer takes its failure back.
import type { Kysely } from 'kysely';
import { afterFailure, afterSuccess, type ThrottleSubject, waitBeforeAttempt } from '../domain/sign-in-throttle.js';
import type { DB } from '../store/schema.js';
import { deleteThrottle, lockThrottles, writeThrottle } from '../store/sign-in-throttles.js';
import { inTransaction } from '../store/transaction.js';

/** Counts the attempt, or answers how long it must wait first (nothing counted then). */
export async function reserveAttempt(db: Kysely<DB>, subjects: readonly ThrottleSubject[], now: number): Promise<number> {
  return inTransaction(db, async (trx) => {
    const states = await lockThrottles(
      trx,
      subjects.map((s) => s.key),
    );
    const wait = waitBeforeAttempt(
      subjects.map((s) => states.get(s.key)),
      now,
    );
    if (wait > 0) return wait;
    for (const subject of subjects) await writeThrottle(trx, subject.key, afterFailure(subject.kind, states.get(subject.key), now));
    return 0;
  });
}

/**
 * The failure an attempt was counted as, taken back: its secret was never checked, or was right.
 * A right one clears the subjects that are the guesser's own (`cleared`: the email and address
 * pair, the user's second factor).
 */
export async function takeBackAttempt(db: Kysely<DB>, subjects: readonly ThrottleSubject[], cleared: (subject: ThrottleSubject) => boolean): Promise<void> {
  await inTransaction(db, async (trx) => {
    const states = await lockThrottles(
      trx,
      subjects.map((s) => s.key),
    );
    for (const subject of subjects) {
      const state = states.get(subject.key);
      if (cleared(subject)) await deleteThrottle(trx, subject.key);
      else if (state) await writeThrottle(trx, subject.key, afterSuccess(state));
    }
  });
}
