// One clock per process. In developer mode it can be moved forward, and reset to real time: the
// offset is shared through the database so every process (server, workers, the CLI) reads the same
// time.

export interface Clock {
  now(): Date;
}

export const CLOCK_OFFSET_SETTING = 'clock_offset_ms';
/** How many times the clock was reset to real time: an offset of a later epoch replaces a larger one. */
export const CLOCK_EPOCH_SETTING = 'clock_epoch';

export class ShiftableClock implements Clock {
  #offsetMs = 0;
  #epoch = 0;

  now(): Date {
    return new Date(Date.now() + this.#offsetMs);
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  get epoch(): number {
    return this.#epoch;
  }

  /**
   * Within an epoch the shared offset only grows: a read of the shared offset that started before
   * this process moved the clock cannot take it back. Only a reset (a later epoch) goes back.
   */
  setOffset(offsetMs: number, epoch = this.#epoch): void {
    if (epoch > this.#epoch) {
      this.#epoch = epoch;
      this.#offsetMs = offsetMs;
    } else if (epoch === this.#epoch && offsetMs > this.#offsetMs) this.#offsetMs = offsetMs;
  }
}
