// The installation's clock and the clocks of accounts. In developer mode the installation's clock can
// be moved forward and reset to real time, and so can each account's own: an account whose clock was
// never moved follows the installation's. Offsets are shared through the database (the settings
// table; merchants.clock_offset_ms), so every process (server, workers, the CLI) reads the same time.
import type { ScanTime } from '../domain/scan-time.js';
import { keptOrMade } from './kept.js';

export interface Clock {
  now(): Date;
  /** How far this clock runs ahead of real time. */
  readonly offsetMs: number;
  /** The account whose clock it is; null for the installation's. */
  readonly account: number | null;
}

export const CLOCK_OFFSET_SETTING = 'clock_offset_ms';
/** How many times the clock was reset to real time: an offset of a later epoch replaces a larger one. */
export const CLOCK_EPOCH_SETTING = 'clock_epoch';

/** An account's own clock as last read: its offset, and the version that orders reads of it. */
export interface AccountClockState {
  offsetMs: number | null;
  version: number;
}

/** Account clocks kept made: an account clock holds nothing but its account, so one made again is the same. */
const CLOCKS_KEPT = 10_000;

class AccountClock implements Clock {
  constructor(
    private readonly clocks: ShiftableClock,
    readonly account: number,
  ) {}

  get offsetMs(): number {
    return this.clocks.offsetOf(this.account);
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

export class ShiftableClock implements Clock {
  readonly account = null;
  #offsetMs = 0;
  #epoch = 0;
  /** Accounts whose clock was moved, by receiver id; also the versions of those reset since, so an older read cannot bring them back. */
  readonly #accounts = new Map<number, AccountClockState>();
  readonly #own = new Map<number, number>();
  readonly #clocks = new Map<number, AccountClock>();

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

  /** The clock an account's records are dated on: its own once moved, else the installation's. One per account, made once (at most CLOCKS_KEPT kept). */
  of(receiverId: number): Clock {
    return keptOrMade(this.#clocks, receiverId, CLOCKS_KEPT, () => new AccountClock(this, receiverId));
  }

  hasOwnClock(receiverId: number): boolean {
    return this.#own.has(receiverId);
  }

  offsetOf(receiverId: number): number {
    return this.#own.get(receiverId) ?? this.#offsetMs;
  }

  /** Records an account's clock as read from the database; a read of an older version changes nothing. */
  setAccount(receiverId: number, state: AccountClockState): void {
    const known = this.#accounts.get(receiverId);
    if (known && known.version > state.version) return;
    this.#accounts.set(receiverId, state);
    if (state.offsetMs === null) this.#own.delete(receiverId);
    else this.#own.set(receiverId, state.offsetMs);
  }

  /** What a scan across accounts compares with: real time, the installation's offset, and how far ahead any account runs; given an account, a scan of its rows alone, on its clock. */
  scanTime(account?: number): ScanTime {
    if (account !== undefined) {
      const offsetMs = this.offsetOf(account);
      return { wallMs: Date.now(), offsetMs, aheadMs: offsetMs, ownClocks: false, account };
    }
    let aheadMs = this.#offsetMs;
    for (const offset of this.#own.values()) if (offset > aheadMs) aheadMs = offset;
    return { wallMs: Date.now(), offsetMs: this.#offsetMs, aheadMs, ownClocks: this.#own.size > 0 };
  }
}
