// A process that stops (a crash, SIGKILL) while asking a bank to transfer leaves its attempt
// authorizing, which blocks every other transfer of that payment. Housekeeping turns such an
// attempt into an uncertain one, as if the bank had not answered, so the payer sees the payment
// in verification and the bank's later answer (resolve-transfers.ts asks it) or its credit
// decides it; the compare-and-set in applyTransferResult keeps two processes doing this at once
// from applying it twice.
import { DomainError } from '../domain/errors.js';
import { abandonedAfterMs } from '../domain/abandoned-question.js';
import { attemptsUnchangedFor } from '../store/attempts.js';
import { applyTransferResult } from './apply-transfer.js';
import { NO_ANSWER } from './ask-bank.js';
import { type AppContext, forAccount } from './context.js';

const BATCH = 100;

/** Returns how many stale transfers it made uncertain: every account's, or `account`'s alone. */
export async function recoverStaleTransfers(ctx: AppContext, account?: number): Promise<number> {
  let recovered = 0;
  const time = ctx.clocks.scanTime(account);
  for (const attempt of await attemptsUnchangedFor(ctx.db, 'authorizing', time, abandonedAfterMs(ctx.config.bankTimeoutMs), BATCH)) {
    try {
      await applyTransferResult(forAccount(ctx, attempt.receiverId), attempt, 'authorizing', NO_ANSWER);
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
