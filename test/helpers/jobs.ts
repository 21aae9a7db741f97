// Background work for tests: every job once, to its end, as the runner of `quipu serve` and `quipu
// worker` would run them when due (for tests that check what a round of housekeeping does, not when
// it runs); or the job runner and the delivery worker running as in `quipu serve`, with test-sized
// timings (for tests that move a clock and wait for what falls due, accountWorkRan).
import type { AppContext } from '../../src/app/context.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { testWorker } from './delivery.js';
import { eventually } from './notification-receiver.js';
import type { TestServer } from './test-server.js';

export async function runEveryJob(ctx: AppContext): Promise<void> {
  await Promise.all(JOBS.map((job) => job.run(ctx)));
}

/** Starts the server's job runner and delivery worker; stop() ends both (a second call waits for the first). */
export function runInBackground(server: TestServer): { stop(): Promise<void> } {
  const worker = testWorker(server);
  const runner = new JobRunner(server.ctx, JOBS, { pollMs: 20, leaseMs: 10_000 });
  runner.start();
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        await runner.stop();
        await worker.stop();
      })()),
  };
}

/** Waits until the runner has run the work an account's clock move (or restore) woke: its wake is gone. */
export async function accountWorkRan(server: TestServer, receiverId: number): Promise<void> {
  await eventually(
    () => server.ctx.db.selectFrom('account_wakes').select('receiver_id').where('receiver_id', '=', receiverId).execute(),
    (rows) => rows.length === 0,
  );
}
