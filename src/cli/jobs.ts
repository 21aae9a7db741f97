// `quipu jobs list`: the background jobs, when each runs next, how its last run went, and whether
// (and in which process) it is running now.
import { Command } from 'commander';
import { jobStatuses } from '../jobs/job-status.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

const UNITS: [suffix: string, ms: number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/** `1m`, `1h`: the largest unit the interval is a whole number of. */
function interval(ms: number): string {
  const [suffix, size] = UNITS.find(([, size]) => ms % size === 0) ?? ['ms', 1];
  return `${ms / size}${suffix}`;
}

export function jobsCommand(): Command {
  const jobs = new Command('jobs').description('background jobs (bank polling, pruning, ...), run by `quipu serve` and `quipu worker`');
  jobs
    .command('list')
    .description('every job: its interval, next and last run, last error, and whether it is running')
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const statuses = await jobStatuses(ctx);
        if (options.json) return console.log(JSON.stringify(statuses));
        printTable(
          [
            { header: 'NAME', value: (s) => s.name },
            { header: 'EVERY', value: (s) => interval(s.interval_ms), right: true },
            { header: 'NEXT RUN', value: (s) => s.next_run_at ?? 'when a process that runs jobs starts' },
            { header: 'STATE', value: (s) => (s.running ? `running in ${s.runner}` : 'idle') },
            { header: 'RUNS', value: (s) => s.runs, right: true },
            { header: 'LAST STARTED', value: (s) => s.last_started_at ?? 'never run' },
            { header: 'LAST FINISHED', value: (s) => s.last_finished_at },
            { header: 'LAST ERROR', value: (s) => (s.last_error ? `${s.last_error_at}: ${s.last_error}` : null) },
          ],
          statuses,
        );
      }),
    );
  return jobs;
}
