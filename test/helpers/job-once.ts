// A process that runs one job of the table once, on a word from its parent, without the job's
// lease: several of these run the same job at the same moment on one database, which the lease
// of `quipu serve` and `quipu worker` otherwise prevents, so a job's own guards are what is tested.
// Run as `node --import tsx test/helpers/job-once.ts <job>` with the installation's environment;
// it prints `ready`, waits for a line on stdin, runs the job and prints its result as JSON.
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { startRuntime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';

const job = JOBS.find((j) => j.name === process.argv[2]);
if (!job) throw new Error(`no job ${process.argv[2]}`);
const config = loadConfig(process.env);
const runtime = await startRuntime(config, createLogger(config.logLevel, 2), { longRunning: true });
console.log('ready');
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
const result = await job.run(runtime.ctx);
console.log(`result ${JSON.stringify(result)}`);
await runtime.close();
