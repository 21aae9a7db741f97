// The instant a scan across accounts runs at (runtime/clock.ts scanTime): real time and the offsets
// of the clocks it compares with. Plain data, so that the store's scans, the jobs and a bank's port
// (a simulated bank settling many accounts' books at once) all speak of it without one another.

export interface ScanTime {
  /** Real time, milliseconds. */
  wallMs: number;
  /** The installation clock's offset from real time. */
  offsetMs: number;
  /** The largest offset of any clock: the installation's, or an account's of its own. */
  aheadMs: number;
  /** Whether any account has a clock of its own. */
  ownClocks: boolean;
  /** The one account whose rows the scan looks at (offsetMs is then its clock's); absent, every account's. */
  account?: number;
}

/** The installation clock's instant of a scan. */
export const installationNow = (time: ScanTime): number => time.wallMs + time.offsetMs;
