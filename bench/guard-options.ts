// What `npm run bench:guard` is asked to compare, and how: its arguments and environment read, and
// the baseline chosen. The baseline is the last commit that changed bench/guard-baseline (a commit
// that accepts a slower Quipu changes that file, saying why), else, before the file's first commit,
// the ref the file names; a ref given as --against or BENCH_GUARD_AGAINST comes before either.
import { parseArgs } from 'node:util';
import { ROUND_SECONDS, ROUNDS } from './rounds.js';

export const MEASURES = ['get', 'create', 'delivery', 'charge'] as const;
export type Measure = (typeof MEASURES)[number];

export interface Form {
  rounds: number;
  /** How long each GET and create measure runs. */
  seconds: number;
  /** Payments paid and notified, and charges taken end to end, in each delivery and charge measure. */
  payments: number;
  measures: readonly Measure[];
  /**
   * Servers started of each build: round i measures the i-th pair (modulo). Each process has a speed
   * of its own (the same build's GET at 40 to 58 µs of CPU in four processes, docs/benchmarks.md),
   * which one process of each build would put into every round.
   */
  processes: number;
}

/** What `.ci/run` runs: the two API measures, in many rounds of a second (docs/benchmarks.md, Performance guard). */
export const SHORT: Form = { rounds: 30, seconds: 1, payments: 1_000, measures: ['get', 'create'], processes: 3 };
export const FULL: Form = { rounds: ROUNDS, seconds: ROUND_SECONDS, payments: 2_000, measures: MEASURES, processes: 3 };

/**
 * The least median of current ÷ baseline a measure may have: on this 2-core machine under the load
 * of other work, a build compared with itself never went below 93%, and one that does 10/7 of the
 * work (30% slower) never above 59% (docs/benchmarks.md, Performance guard).
 */
export const THRESHOLD = 0.75;

export interface GuardOptions {
  /** A ref, or a directory holding a built Quipu; unset: the baseline (baselineRef). */
  against: string | undefined;
  /** A ref, or a directory holding a built Quipu; unset: the working tree, built as it is. */
  current: string | undefined;
  postgres: boolean;
  /** Both servers as a production installation runs (SANDBOX=false, test/helpers/production.ts), not in developer mode. */
  production: boolean;
  form: Form;
  threshold: number;
}

export function guardOptions(argv: string[], env: Record<string, string | undefined>): GuardOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      against: { type: 'string' },
      current: { type: 'string' },
      short: { type: 'boolean', default: false },
      postgres: { type: 'boolean', default: false },
      production: { type: 'boolean', default: false },
      threshold: { type: 'string' },
      processes: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const threshold = values.threshold === undefined ? THRESHOLD : Number(values.threshold);
  if (!(threshold > 0 && threshold <= 1)) throw new Error(`--threshold must be a ratio above 0 and at most 1, got ${values.threshold}`);
  const form = values.production ? { ...(values.short ? SHORT : FULL), measures: ['get', 'create'] as const } : values.short ? SHORT : FULL;
  const processes = values.processes === undefined ? form.processes : Number(values.processes);
  if (!(Number.isInteger(processes) && processes >= 1))
    throw new Error(`--processes must be a whole number of servers of each build, at least 1, got ${values.processes}`);
  return {
    against: values.against ?? (env.BENCH_GUARD_AGAINST || undefined),
    current: values.current ?? (env.BENCH_GUARD_CURRENT || undefined),
    postgres: values.postgres!,
    production: values.production!,
    // A production installation notifies no address of this machine: its measures are the API's.
    form: { ...form, processes },
    threshold,
  };
}

/** The ref bench/guard-baseline names: its last line that is not empty (the ones before it explain). */
export function writtenRef(text: string): string {
  const ref = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1);
  if (!ref || /\s/.test(ref)) throw new Error(`bench/guard-baseline must end with a line holding a ref alone, got "${ref ?? ''}"`);
  return ref;
}

/** `lastChange`: the last commit that changed bench/guard-baseline, empty before its first. */
export function baselineRef(given: string | undefined, lastChange: string, written: string): string {
  return given ?? (lastChange || written);
}
