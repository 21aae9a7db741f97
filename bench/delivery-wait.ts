// The end of a delivery run: every message received by the other end (watched there, so counting
// rows does not load the database being measured), then every attempt recorded.
import { performance } from 'node:perf_hooks';

/** No delivery run may last longer than this. */
export const RUN_LIMIT_MS = 120_000;

/** Waits until `received()` and then `recorded()` reach `n` (or the run's time, `limitMs`, is up); returns the last `recorded()`. */
export async function untilDelivered(
  n: number,
  startedAt: number,
  received: () => Promise<number>,
  recorded: () => Promise<number>,
  limitMs = RUN_LIMIT_MS,
): Promise<number> {
  const within = () => performance.now() - startedAt < limitMs;
  while ((await received()) < n && within()) await new Promise((r) => setTimeout(r, 20));
  let delivered = await recorded();
  while (delivered < n && within()) {
    await new Promise((r) => setTimeout(r, 5));
    delivered = await recorded();
  }
  return delivered;
}
