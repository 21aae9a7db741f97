// Request timeouts for many requests at once. One timer sweeps every request in flight and expires
// those past their deadline: a timer (and an AbortSignal) per request costs more than the request
// itself does on a fast network (measured: about a sixth of the worker's time per notification).
import { performance } from 'node:perf_hooks';

export class DeadlineExceeded extends Error {
  override readonly name = 'TimeoutError';
}

/** What a request past its deadline is told, whichever timer noticed first. */
export const deadlineMessage = (timeoutMs: number): string => `no complete answer within ${timeoutMs} ms`;

export interface Expirable {
  expire(reason: DeadlineExceeded): void;
}

export class Deadlines {
  readonly #pending = new Map<Expirable, number>();
  readonly #sweepMs: number;
  #timer: NodeJS.Timeout | undefined;

  /** Requests expire `timeoutMs` after they start, late by at most a twentieth of it (and never more than 250 ms). */
  constructor(private readonly timeoutMs: number) {
    this.#sweepMs = Math.max(5, Math.min(250, Math.floor(timeoutMs / 20)));
  }

  track(request: Expirable): void {
    this.#pending.set(request, performance.now() + this.timeoutMs);
    this.#timer ??= setInterval(() => this.#sweep(), this.#sweepMs).unref();
  }

  release(request: Expirable): void {
    this.#pending.delete(request);
    if (this.#pending.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #sweep(): void {
    const now = performance.now();
    for (const [request, deadline] of this.#pending) {
      if (deadline > now) continue;
      this.release(request);
      request.expire(new DeadlineExceeded(deadlineMessage(this.timeoutMs)));
    }
  }
}
