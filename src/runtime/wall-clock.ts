// Leases bound how long a process may hold a claim in real time, so they are measured on the
// clock without the developer offset: moving the developer clock forward two days must not make
// every attempt in flight look abandoned and send it a second time.
import type { Clock } from './clock.js';

export function wallClockMs(clock: Clock): number {
  return clock.now().getTime() - clock.offsetMs;
}
