// The delivery worker: claims due messages of every kind in batches (with a lease), sends each
// through its channel's transport with bounded concurrency, overall and per destination (receiver
// origin, or the mail server), and records the attempts in batches.
// A slow or dead receiver only ever holds its own requests (each has a timeout, and at most
// `perDestination` are in flight), never the loop nor the other receivers' share. Delivery is at
// least once: a worker that dies mid-attempt leaves its claims leased, and they are claimed again
// when the lease ends.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { RandomBytes } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { type Channel, kindRule } from '../domain/message-kinds.js';
import { mayNotifyPrivateAddresses } from '../domain/network-address.js';
import { nextAttemptAt, parseRetryAfter } from '../domain/retry-schedule.js';
import type { SandboxFaults } from '../domain/sandbox-faults.js';
import type { ShiftableClock } from '../runtime/clock.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { claimDueMessages, type FinishedAttempt, type RecordedAttempt, recordAttempts, releaseClaims, stillToSend } from '../store/messages.js';
import type { DB, MessageRow } from '../store/schema.js';
import { DestinationLoad } from './destinations.js';
import { type FaultPlan, type Planned, planFaults } from './fault-plan.js';
import type { SendResult } from './sender.js';
import { loggedResult, type Transport } from './transport.js';

/** What the worker uses, and nothing more (main/delivery-worker.ts puts it together). */
export interface DeliveryDependencies {
  db: Kysely<DB>;
  clock: ShiftableClock;
  random: RandomBytes;
  log: Logger;
  /** The account a message belongs to, undefined when it cannot be read: its attempt fails. */
  account(receiverId: number): Promise<Merchant | undefined>;
  /** SANDBOX: developer-mode accounts may then be notified at private addresses. */
  sandbox: boolean;
  /** SANDBOX only: the account's faults on demand (fault-plan.ts); elsewhere the rows are not even looked at for them. */
  faults?: (receiverId: number) => Promise<SandboxFaults | null>;
  /** How each channel's messages are sent; a message of a channel without one fails its attempt. */
  transports: Partial<Record<Channel, Transport>>;
}

export interface WorkerOptions {
  concurrency: number;
  /** Most requests in flight to one destination (receiver origin). */
  perDestination: number;
  batchSize: number;
  pollMs: number;
  leaseMs: number;
  timeoutMs: number;
}

interface Claimed {
  row: MessageRow;
  leaseId: string;
  /** Wall-clock milliseconds. */
  leaseUntil: number;
  /** What its account's sandbox faults make of it (fault-plan.ts); none for nearly every message. */
  fault?: FaultPlan;
}

interface Finished {
  claimed: Claimed;
  startedAt: number;
  result: SendResult;
}

/**
 * Finished attempts wait this long to be recorded together: one transaction for many attempts
 * (group commit) instead of one per attempt, which would cost more than the requests themselves.
 */
const FLUSH_DELAY_MS = 10;

/** A request ends within its timeout plus the deadline sweep's lateness (a twentieth of it at most), so this much lease must be left to start one. */
const LEASE_PER_TIMEOUT = 1.1;

/** An attempt that could not be made, recorded as failed. */
function failure(error: string): SendResult {
  return { delivered: false, statusCode: null, error, responseExcerpt: null, latencyMs: 0, retryAfter: undefined };
}

function triggerOf(row: MessageRow): string {
  if (row.round_step > 0) return 'retry';
  return row.attempts === 0 ? 'first' : 'resend';
}

export class DeliveryWorker {
  readonly #deps: DeliveryDependencies;
  readonly #options: WorkerOptions;
  readonly #destinations: DestinationLoad;
  #ready: Claimed[] = [];
  readonly #finished: Finished[] = [];
  readonly #sends = new Set<Promise<void>>();
  #running: Promise<void> | undefined;
  #stopping = false;
  #flushing: Promise<void> | undefined;
  #flushTimer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;
  /** A destination got room while the loop was not paused: its next pause ends at once. */
  #roomWhileBusy = false;
  #shortClaim: { at: number; skipped: readonly string[] } | undefined;
  #waitingForSlot = false;

  constructor(deps: DeliveryDependencies, options: WorkerOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#destinations = new DestinationLoad(options.perDestination);
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
    await Promise.all(Object.values(this.#deps.transports).map((t) => t.close()));
  }

  async #loop(): Promise<void> {
    const { concurrency, batchSize, pollMs } = this.#options;
    const wanted = Math.min(batchSize, concurrency);
    while (!this.#stopping) {
      // Claim a round of requests whenever fewer than half a round are waiting for a slot: each
      // claim query then serves many messages, and requests start as soon as a slot frees.
      if (this.#destinations.waitingForSlots() > concurrency / 2) {
        await this.#pause();
        continue;
      }
      const skip = this.#destinations.saturated();
      const sinceShortClaim = this.#sinceShortClaim(skip);
      if (sinceShortClaim < pollMs) {
        await this.#pause(pollMs - sinceShortClaim);
        continue;
      }
      let claimed = 0;
      try {
        claimed = await this.#claim(wanted, skip);
      } catch (error) {
        this.#deps.log.error({ err: error }, 'claiming messages failed');
      }
      // Nothing more is due beyond the destinations skipped: look again after a while, or as soon as one of those has room.
      if (claimed < wanted) {
        this.#shortClaim = { at: performance.now(), skipped: skip };
        await this.#pause(pollMs);
      }
    }
  }

  /**
   * How long ago a claim skipping no more than `skip` found fewer rows than it asked for. Until
   * one of the destinations it skipped has room, or a poll interval has passed, the same claim
   * would find nothing new: it is not repeated (Infinity: claim).
   */
  #sinceShortClaim(skip: readonly string[]): number {
    const last = this.#shortClaim;
    if (!last || !last.skipped.every((d) => skip.includes(d))) return Infinity;
    return performance.now() - last.at;
  }

  /** Without `ms`, until a request finishes; with it, for `ms`. Either ends early when a skipped destination gets room, and at stop(). */
  async #pause(ms?: number): Promise<void> {
    if (this.#roomWhileBusy) {
      this.#roomWhileBusy = false;
      return;
    }
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

  async #claim(limit: number, skipDestinations: readonly string[]): Promise<number> {
    const leaseId = randomUUID();
    const wallNow = wallClockMs(this.#deps.clock);
    const leaseUntil = wallNow + this.#options.leaseMs;
    const rows = await claimDueMessages(this.#deps.db, {
      time: this.#deps.clock.scanTime(),
      wallNow,
      leaseId,
      leaseUntil,
      limit,
      skipDestinations,
    });
    const faults = this.#deps.faults;
    const planned = faults ? await planFaults(rows, this.#deps.db, faults) : rows.map((row): Planned => ({ row }));
    for (const { row, fault } of planned) {
      this.#ready.push({ row, leaseId, leaseUntil, fault });
      this.#destinations.wait(row.destination);
      // Due rows of another destination than those skipped by the last short claim: there may be more.
      if (!this.#shortClaim?.skipped.includes(row.destination)) this.#shortClaim = undefined;
    }
    this.#startReady();
    return rows.length;
  }

  /** A request must end (timeout included) while the lease holds, or another worker could send the same message meanwhile. */
  #leaseOutlastsRequest(claimed: Claimed, wallNow: number): boolean {
    return claimed.leaseUntil - wallNow > this.#options.timeoutMs * LEASE_PER_TIMEOUT;
  }

  /**
   * Starts claimed messages, oldest first, while the worker has free slots and their
   * destinations have room; hands back those whose lease has become too short to send them.
   */
  #startReady(): void {
    if (this.#stopping) return;
    const wallNow = wallClockMs(this.#deps.clock);
    const waiting: Claimed[] = [];
    const stale: Claimed[] = [];
    for (const claimed of this.#ready) {
      const destination = claimed.row.destination;
      if (!this.#leaseOutlastsRequest(claimed, wallNow)) {
        stale.push(claimed);
        this.#left(destination, false);
      } else if (claimed.fault?.after?.sent === false) {
        waiting.push(claimed);
      } else if (this.#sends.size < this.#options.concurrency && this.#destinations.hasRoom(destination)) {
        this.#left(destination, true);
        this.#start(claimed);
      } else {
        waiting.push(claimed);
      }
    }
    this.#ready = waiting;
    if (stale.length > 0) void this.#release(stale);
  }

  /** A claimed row leaves the queue; if that gives its destination room for more claims, the loop may claim again. */
  #left(destination: string, started: boolean): void {
    if (!this.#destinations.leave(destination, started)) return;
    if (this.#wake) this.#wake();
    else this.#roomWhileBusy = true;
  }

  #start(claimed: Claimed): void {
    const send = this.#send(claimed)
      .catch((error) => this.#deps.log.error({ err: error, message: claimed.row.message_id }, 'sending a message failed'))
      .finally(() => {
        if (claimed.fault) claimed.fault.sent = true;
        this.#sends.delete(send);
        this.#destinations.finish(claimed.row.destination);
        this.#startReady();
        if (this.#waitingForSlot) this.#wake?.();
      });
    this.#sends.add(send);
  }

  /** Hands claimed messages back unsent, for any worker to claim again now. */
  async #release(claims: Claimed[]): Promise<void> {
    if (claims.length === 0) return;
    try {
      await releaseClaims(
        this.#deps.db,
        claims.map((c) => c.row.message_id),
        [...new Set(claims.map((c) => c.leaseId))],
      );
    } catch (error) {
      // Their leases end on their own: they are only claimed again later.
      this.#deps.log.error({ err: error }, 'releasing claimed messages failed');
    }
  }

  async #send(claimed: Claimed): Promise<void> {
    const { row } = claimed;
    const merchant = await this.#deps.account(row.receiver_id).catch(() => undefined);
    // The message is sent, signed and scheduled on its account's clock.
    const clock = this.#deps.clock.of(row.receiver_id);
    // A message with a validity may have been withdrawn since it was claimed, or its time may have passed.
    if (row.valid_until !== null && !(await stillToSend(this.#deps.db, row.message_id, claimed.leaseId, clock.now().getTime()))) return;
    // The lookups may have taken a while: the request must still fit in the lease.
    if (!this.#leaseOutlastsRequest(claimed, wallClockMs(this.#deps.clock))) {
      await this.#release([claimed]);
      return;
    }
    const rule = kindRule(row.kind);
    const transport = rule && this.#deps.transports[rule.channel];
    // A sandbox fault may send it twice: the second attempt is logged too (one write later), the first decides the message's fate.
    for (let copies = claimed.fault?.twice ? 2 : 1; copies > 0; copies--) {
      const startedAt = clock.now().getTime();
      const result: SendResult =
        merchant && transport
          ? await transport.send(row, { account: merchant, startedAt, publicOnly: !mayNotifyPrivateAddresses(merchant.developer, this.#deps.sandbox) })
          : failure(merchant ? `this process cannot send messages of kind ${row.kind}` : 'the account could not be read');
      this.#finished.push({ claimed, startedAt, result });
      if (this.#finished.length >= this.#options.batchSize) void this.#flush();
      else this.#flushTimer ??= setTimeout(() => void this.#flush(), FLUSH_DELAY_MS);
    }
  }

  /** Records every finished attempt; attempts that finish while a write runs go in the next one. */
  #flush(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#flushing ??= this.#writeFinished()
      .catch((error) => this.#deps.log.error({ err: error }, 'recording message attempts failed'))
      .finally(() => {
        this.#flushing = undefined;
        // An attempt that finished after the last write looked, but before this ran, would wait for the next one.
        if (this.#finished.length > 0) void this.#flush();
      });
    return this.#flushing;
  }

  /** The finished attempts to record in one write: one per message, the oldest first (a lease that lapsed can leave two). */
  #nextBatch(): Finished[] {
    const seen = new Set<string>();
    const batch: Finished[] = [];
    const later: Finished[] = [];
    for (const f of this.#finished.splice(0)) {
      const id = f.claimed.row.message_id;
      (seen.has(id) ? later : batch).push(f);
      seen.add(id);
    }
    this.#finished.push(...later);
    return batch;
  }

  async #writeFinished(): Promise<void> {
    while (this.#finished.length > 0) {
      const batch = this.#nextBatch();
      const time = this.#deps.clock.scanTime();
      const wallNow = time.wallMs;
      const attempts: FinishedAttempt[] = batch.map(({ claimed: { row, leaseId }, startedAt, result }) => ({
        attempt: {
          message_id: row.message_id,
          receiver_id: row.receiver_id,
          trigger: triggerOf(row),
          due_at: row.next_attempt_at!,
          started_at: startedAt,
          ...loggedResult(result),
        },
        leaseId,
        nextAttemptAt: result.delivered
          ? null
          : nextAttemptAt({
              attemptsInRound: row.round_step + 1,
              roundStartedAt: row.round_started_at,
              dueAt: row.next_attempt_at!,
              now: wallNow + this.#deps.clock.offsetOf(row.receiver_id),
              random: this.#deps.random(4).reduce((acc, byte) => acc * 256 + byte, 0) / 2 ** 32,
              retryAfterMs: parseRetryAfter(result.retryAfter, wallNow),
            }),
      }));
      let recorded: Map<string, RecordedAttempt>;
      try {
        recorded = await recordAttempts(this.#deps.db, attempts, time);
      } catch (error) {
        // The rows stay leased: when the leases end they are sent again, so nothing is lost, only these log lines.
        this.#deps.log.error({ err: error, attempts: batch.length }, 'recording message attempts failed');
        if (this.#stopping) return;
        this.#finished.unshift(...batch);
        await new Promise((resolve) => setTimeout(resolve, this.#options.pollMs));
        continue;
      }
      batch.forEach(({ claimed: { row }, result }, i) => {
        const done = recorded.get(row.message_id);
        if (!result.delivered && attempts[i]!.nextAttemptAt === null && done?.applied) {
          this.#deps.log.warn(
            { message: row.message_id, kind: row.kind, subject: row.subject_id, receiver: row.receiver_id, attempts: done.number },
            'notification attempts exhausted',
          );
        }
      });
    }
  }
}
