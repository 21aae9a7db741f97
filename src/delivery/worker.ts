// The delivery worker: claims due notifications in batches (with a lease), sends them with bounded
// concurrency, and records the attempts in batches. A slow or dead receiver only ever holds its
// own requests (each has a timeout), never the loop. Delivery is at least once: a worker that
// dies mid-attempt leaves its claims leased, and they are claimed again when the lease ends.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import type { Merchant } from '../domain/merchant.js';
import { SIGNATURE_HEADER, notificationSignature } from '../domain/notification-signature.js';
import { nextAttemptAt, parseRetryAfter } from '../domain/retry-schedule.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { claimDueNotifications, type DeliveryOutcome, type NewAttemptRow, recordAttempts, releaseClaims } from '../store/notifications.js';
import type { NotificationRow } from '../store/schema.js';
import { NotificationSender, type SendResult } from './sender.js';

export interface WorkerOptions {
  concurrency: number;
  batchSize: number;
  pollMs: number;
  leaseMs: number;
  timeoutMs: number;
}

interface Claimed {
  row: NotificationRow;
  leaseId: string;
  /** Wall-clock milliseconds. */
  leaseUntil: number;
}

interface Finished {
  row: NotificationRow;
  leaseId: string;
  startedAt: number;
  result: SendResult;
}

/**
 * Finished attempts wait this long to be recorded together: one transaction for many attempts
 * (group commit) instead of one per attempt, which would cost more than the requests themselves.
 */
const FLUSH_DELAY_MS = 10;

function triggerOf(row: NotificationRow): string {
  if (row.round_step > 0) return 'retry';
  return row.attempts === 0 ? 'first' : 'resend';
}

export class DeliveryWorker {
  readonly #ctx: AppContext;
  readonly #options: WorkerOptions;
  readonly #sender: NotificationSender;
  readonly #ready: Claimed[] = [];
  readonly #finished: Finished[] = [];
  readonly #sends = new Set<Promise<void>>();
  #running: Promise<void> | undefined;
  #stopping = false;
  #flushing: Promise<void> | undefined;
  #flushTimer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;
  #waitingForSlot = false;

  constructor(ctx: AppContext, options: WorkerOptions = workerOptions(ctx)) {
    this.#ctx = ctx;
    this.#options = options;
    this.#sender = new NotificationSender(options.timeoutMs, options.concurrency);
  }

  start(): void {
    this.#running ??= this.#loop();
  }

  /**
   * Stops claiming, lets the attempts in flight finish (each is bounded by its timeout) and
   * records them; claimed rows not started yet are handed back at once.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#running;
    await this.#release(this.#ready.splice(0));
    await Promise.all(this.#sends);
    while (this.#flushing || this.#finished.length > 0) await this.#flush();
    await this.#sender.close();
  }

  async #loop(): Promise<void> {
    const { concurrency, batchSize, pollMs } = this.#options;
    const wanted = Math.min(batchSize, concurrency);
    while (!this.#stopping) {
      // Claim a round of requests whenever fewer than half a round are ready to go: each claim
      // query then serves many notifications, and requests start as soon as a slot frees.
      if (this.#ready.length > concurrency / 2) {
        await this.#pause();
        continue;
      }
      let claimed = 0;
      try {
        claimed = await this.#claim(wanted);
      } catch (error) {
        this.#ctx.log.error({ err: error }, 'claiming notifications failed');
      }
      if (claimed < wanted) await this.#pause(pollMs);
    }
  }

  /** Without `ms`, until a request finishes; with it, for `ms`. stop() ends either at once. */
  async #pause(ms?: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.#waitingForSlot = ms === undefined;
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
  }

  async #claim(limit: number): Promise<number> {
    const leaseId = randomUUID();
    const wallNow = wallClockMs(this.#ctx.clock);
    const leaseUntil = wallNow + this.#options.leaseMs;
    const rows = await claimDueNotifications(this.#ctx.db, { now: this.#ctx.clock.now().getTime(), wallNow, leaseId, leaseUntil, limit });
    for (const row of rows) this.#ready.push({ row, leaseId, leaseUntil });
    this.#startReady();
    return rows.length;
  }

  /** Starts claimed notifications while slots are free. */
  #startReady(): void {
    const { concurrency, timeoutMs } = this.#options;
    const stale: Claimed[] = [];
    while (!this.#stopping && this.#sends.size < concurrency && this.#ready.length > 0) {
      const claimed = this.#ready.shift()!;
      // A request must end (timeout included) while the lease holds, or another worker could send the same notification meanwhile.
      if (claimed.leaseUntil - wallClockMs(this.#ctx.clock) <= timeoutMs * 1.1) {
        stale.push(claimed);
        continue;
      }
      const send = this.#send(claimed.row, claimed.leaseId)
        .catch((error) => this.#ctx.log.error({ err: error, notification: claimed.row.notification_id }, 'sending a notification failed'))
        .finally(() => {
          this.#sends.delete(send);
          this.#startReady();
          if (this.#waitingForSlot) this.#wake?.();
        });
      this.#sends.add(send);
    }
    if (stale.length > 0) void this.#release(stale);
  }

  /** Hands claimed notifications back unsent, for any worker to claim again now. */
  async #release(claims: Claimed[]): Promise<void> {
    if (claims.length === 0) return;
    try {
      await releaseClaims(
        this.#ctx.db,
        claims.map((c) => c.row.notification_id),
        [...new Set(claims.map((c) => c.leaseId))],
      );
    } catch (error) {
      // Their leases end on their own: they are only claimed again later.
      this.#ctx.log.error({ err: error }, 'releasing claimed notifications failed');
    }
  }

  async #send(row: NotificationRow, leaseId: string): Promise<void> {
    const merchant: Merchant | undefined = await this.#ctx.merchants.byReceiverId(row.receiver_id).catch(() => undefined);
    const startedAt = this.#ctx.clock.now().getTime();
    const result = merchant
      ? await this.#sender.send(
          {
            url: row.url,
            contentType: row.content_type,
            body: row.body,
            headers: row.api_version === '3.0' ? { [SIGNATURE_HEADER]: notificationSignature(merchant.secret, startedAt, row.body) } : {},
          },
          !merchant.developer,
        )
      : { delivered: false, httpStatus: null, error: 'the account could not be read', responseExcerpt: null, latencyMs: 0, retryAfter: undefined };
    this.#finished.push({ row, leaseId, startedAt, result });
    if (this.#finished.length >= this.#options.batchSize) void this.#flush();
    else this.#flushTimer ??= setTimeout(() => void this.#flush(), FLUSH_DELAY_MS);
  }

  /** Records every finished attempt; attempts that finish while a write runs go in the next one. */
  #flush(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#flushing ??= this.#writeFinished()
      .catch((error) => this.#ctx.log.error({ err: error }, 'recording notification attempts failed'))
      .finally(() => {
        this.#flushing = undefined;
        // An attempt that finished after the last write looked, but before this ran, would wait for the next one.
        if (this.#finished.length > 0) void this.#flush();
      });
    return this.#flushing;
  }

  async #writeFinished(): Promise<void> {
    while (this.#finished.length > 0) {
      const batch = this.#finished.splice(0);
      const now = this.#ctx.clock.now().getTime();
      const wallNow = wallClockMs(this.#ctx.clock);
      const attempts: NewAttemptRow[] = [];
      const outcomes: DeliveryOutcome[] = [];
      for (const { row, leaseId, startedAt, result } of batch) {
        attempts.push({
          notification_id: row.notification_id,
          receiver_id: row.receiver_id,
          number: row.attempts + 1,
          trigger: triggerOf(row),
          started_at: startedAt,
          latency_ms: result.latencyMs,
          outcome: result.delivered ? 'delivered' : 'failed',
          http_status: result.httpStatus,
          error: result.error,
          response_excerpt: result.responseExcerpt,
        });
        const next = result.delivered
          ? null
          : nextAttemptAt({
              attemptsInRound: row.round_step + 1,
              roundStartedAt: row.round_started_at,
              now,
              random: this.#ctx.random(4).reduce((acc, byte) => acc * 256 + byte, 0) / 2 ** 32,
              retryAfterMs: parseRetryAfter(result.retryAfter, wallNow),
            });
        if (!result.delivered && next === null) {
          this.#ctx.log.warn({ notification: row.notification_id, payment: row.payment_id, receiver: row.receiver_id, attempts: row.attempts + 1 }, 'notification attempts exhausted');
        }
        outcomes.push({ notificationId: row.notification_id, leaseId, delivered: result.delivered, nextAttemptAt: next });
      }
      try {
        await recordAttempts(this.#ctx.db, attempts, outcomes, now);
      } catch (error) {
        // The rows stay leased: when the leases end they are sent again, so nothing is lost, only these log lines.
        this.#ctx.log.error({ err: error, attempts: batch.length }, 'recording notification attempts failed');
        if (this.#stopping) return;
        this.#finished.unshift(...batch);
        await new Promise((resolve) => setTimeout(resolve, this.#options.pollMs));
      }
    }
  }
}

export function workerOptions(ctx: AppContext): WorkerOptions {
  const c = ctx.config;
  return { concurrency: c.deliveryConcurrency, batchSize: c.deliveryBatchSize, pollMs: c.deliveryPollMs, leaseMs: c.deliveryLeaseMs, timeoutMs: c.deliveryTimeoutMs };
}
