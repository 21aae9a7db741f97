// One clock per process. In developer mode it can be moved forward: the offset is shared through
// the database so every process (server, workers, the CLI) reads the same time.

export interface Clock {
  now(): Date;
}

export const CLOCK_OFFSET_SETTING = 'clock_offset_ms';

export class ShiftableClock implements Clock {
  #offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.#offsetMs);
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** The shared offset only grows: time never runs backwards for a process that saw it move. */
  setOffset(offsetMs: number): void {
    if (offsetMs > this.#offsetMs) this.#offsetMs = offsetMs;
  }
}
