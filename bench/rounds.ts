// Paired measurement on a shared machine whose speed drifts by a fifth within minutes (seen here:
// the same scenario at 72 and at 91 µs of server CPU a request, a few minutes apart): a figure is
// only compared with yardsticks measured in the same round. The scenarios run in rounds, each
// round measuring every scenario once, in order and then in reverse order the next round (what
// runs first in a round must not be what always runs on a fresher or a wearier machine); a ratio
// is taken within a round, and a target applies to the median of the rounds' ratios.
import type { LoadResult } from './load.js';

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
export const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 4);

/** A scenario's results, one per round. */
export type Rounds = LoadResult[];

/** Runs `rounds` rounds of the scenarios, alternately in order and in reverse; each scenario's results, one per round. */
export async function inRounds<K extends string, R = LoadResult>(scenarios: Record<K, () => Promise<R>>, rounds = ROUNDS): Promise<Record<K, R[]>> {
  const entries = Object.entries(scenarios) as [K, () => Promise<R>][];
  const results = Object.fromEntries(entries.map(([name]) => [name, []])) as unknown as Record<K, R[]>;
  for (let round = 0; round < rounds; round++) {
    for (const [name, scenario] of round % 2 ? [...entries].reverse() : entries) results[name].push(await scenario());
  }
  return results;
}

/** Each round's ratio of a scenario to its yardstick. */
export function ratios(scenario: Rounds, yardstick: Rounds): number[] {
  return scenario.map((r, i) => r.rps / yardstick[i]!.rps);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Means over the rounds (errors summed, memory at its peak). */
export function mean(rounds: Rounds): LoadResult {
  const avg = (pick: (r: LoadResult) => number) => rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
  const peak = Math.max(...rounds.map((r) => r.maxRssMb ?? 0));
  return {
    rps: avg((r) => r.rps),
    p50: avg((r) => r.p50),
    p99: avg((r) => r.p99),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    maxRssMb: peak || undefined,
  };
}
