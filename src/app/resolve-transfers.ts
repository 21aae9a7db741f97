// A transfer its bank left uncertain (the bank did not say, could not be reached, or a stopped
// process never heard its answer) is decided by that bank: housekeeping asks each bank what became
// of it and applies a definite answer as if it had come at once. applyTransferResult is a
// compare-and-set, so two processes (or a developer's DemoBank decision, settle-transfer.ts) never
// apply one answer twice.
import { DomainError } from '../domain/errors.js';
import type { PaymentAttempt } from '../domain/payment-attempt.js';
import { attemptsInState } from '../store/attempts.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { applyTransferResult, transferOrder } from './apply-transfer.js';
import { askBank, NO_ANSWER_IN_TIME } from './ask-bank.js';
import { type AppContext, forAccount } from './context.js';

const BATCH = 100;

/** Asks the bank of an uncertain transfer what became of it; true when its answer (executed or failed) was applied. */
export async function resolveTransfer(ctx: AppContext, attempt: PaymentAttempt): Promise<boolean> {
  const connector = ctx.banks.connectorFor(attempt.bankId);
  const payment = await findPaymentById(ctx.db, attempt.paymentId);
  if (!connector || !payment) return false;
  const answer = await askBank(ctx, (call) => connector.transferStatus(transferOrder(attempt, payment, ctx.config.collectionAccount), call));
  if (answer === NO_ANSWER_IN_TIME) {
    ctx.log.warn(
      { attemptId: attempt.attemptId, bankId: attempt.bankId, timeoutMs: ctx.config.bankTimeoutMs },
      'the bank did not say in time what became of an uncertain transfer',
    );
    return false;
  }
  if (answer.status === 'uncertain') return false;
  try {
    await applyTransferResult(ctx, attempt, 'uncertain', answer);
    return true;
  } catch (error) {
    // Another process applied the bank's answer in the meantime.
    if (error instanceof DomainError && error.kind === 'state') return false;
    throw error;
  }
}

/** Every uncertain transfer, a page at a time; returns how many its bank decided. A bank that fails is asked again at the next round. */
export async function resolveUncertainTransfers(ctx: AppContext): Promise<number> {
  let resolved = 0;
  let after: PaymentAttempt | undefined;
  for (;;) {
    const page = await attemptsInState(ctx.db, 'uncertain', after, BATCH);
    for (const attempt of page) {
      try {
        if (await resolveTransfer(forAccount(ctx, attempt.receiverId), attempt)) resolved += 1;
      } catch (error) {
        ctx.log.error({ err: error, attemptId: attempt.attemptId, bankId: attempt.bankId }, 'could not ask the bank what became of an uncertain transfer');
      }
    }
    if (page.length < BATCH) return resolved;
    after = page.at(-1);
  }
}
