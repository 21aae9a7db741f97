// Waits for a message's next attempt to be logged: after a resend, a running `quipu serve` or
// `quipu worker` sends it and logs the attempt, which this finds by its number. Bounded: undefined
// when none was logged within `timeoutMs` (real time: it measures the wait, not the account's clock).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { listAttemptRows } from '../store/messages.js';
import type { MessageAttemptRow } from '../store/schema.js';
import type { AppContext } from './context.js';

const POLL_MS = 200;

/** The first attempt of `messageId` numbered after `afterNumber`, once logged. */
export async function nextAttempt(ctx: AppContext, messageId: string, afterNumber: number, timeoutMs: number): Promise<MessageAttemptRow | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = (await listAttemptRows(ctx.db, messageId)).find((a) => a.number > afterNumber);
    if (found || performance.now() >= deadline) return found;
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - performance.now())));
  }
}
