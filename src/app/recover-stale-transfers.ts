// A process that stops (a crash, SIGKILL) while asking a bank to transfer leaves its attempt
// authorizing, which blocks every other transfer of that payment. Housekeeping turns such an
// attempt into an uncertain one, as if the bank had not answered, so the payer sees the payment
// in verification and the bank's later answer (resolve-transfers.ts asks it) or its credit
// decides it; the compare-and-set in applyTransferResult keeps two processes doing this at once
// from applying it twice.
import { DomainError } from '../domain/errors.js';
import { staleAuthorizationCutoff } from '../domain/payment-attempt.js';
import { attemptsUnchangedSince } from '../store/attempts.js';
import { applyTransferResult } from './apply-transfer.js';
import { NO_ANSWER } from './ask-bank.js';
import type { AppContext } from './context.js';

const BATCH = 100;

/** Returns how many stale transfers it made uncertain. */
export async function recoverStaleTransfers(ctx: AppContext): Promise<number> {
  const cutoff = staleAuthorizationCutoff(ctx.clock.now(), ctx.config.bankTimeoutMs);
  let recovered = 0;
  for (const attempt of await attemptsUnchangedSince(ctx.db, 'authorizing', cutoff, BATCH)) {
    try {
      await applyTransferResult(ctx, attempt, 'authorizing', NO_ANSWER);
      recovered += 1;
      ctx.log.warn(
        { attemptId: attempt.attemptId, paymentId: attempt.paymentId, bankId: attempt.bankId },
        'a transfer left authorizing by a stopped process is now uncertain, for its bank to confirm or fail',
      );
    } catch (error) {
      // The answer arrived, or another process recovered it, in the meantime.
      if (!(error instanceof DomainError && error.kind === 'state')) throw error;
    }
  }
  return recovered;
}
