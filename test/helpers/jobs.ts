// Every background job once, to its end, as the runner of `quipu serve` and `quipu worker` would
// run them when due: for tests that check what a round of housekeeping does, not when it runs.
import type { AppContext } from '../../src/app/context.js';
import { JOBS } from '../../src/jobs/jobs.js';

export async function runEveryJob(ctx: AppContext): Promise<void> {
  await Promise.all(JOBS.map((job) => job.run(ctx)));
}
