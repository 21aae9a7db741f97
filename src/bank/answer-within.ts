// A bank is reached over the network, so its answer is waited for at most BANK_TIMEOUT_MS; one that
// arrives later is not waited for (what it did, only the bank's settlement can tell).
import { setTimeout as sleep } from 'node:timers/promises';

export const NO_ANSWER_IN_TIME = Symbol('no answer in time');

export async function answerWithin<T>(call: Promise<T>, timeoutMs: number): Promise<T | typeof NO_ANSWER_IN_TIME> {
  const deadline = new AbortController();
  try {
    return await Promise.race([call, sleep(timeoutMs, NO_ANSWER_IN_TIME, { signal: deadline.signal })]);
  } finally {
    deadline.abort();
  }
}
