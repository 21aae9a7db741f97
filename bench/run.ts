// `npm run bench`: every load scenario against real servers on this machine, written to
// docs/benchmarks.md. Traffic goes only to 127.0.0.1 and every scenario is bounded in time.
import fs from 'node:fs';
import os from 'node:os';
import { benchAccountSnapshots } from './account-snapshots.js';
import { benchApi } from './api.js';
import { benchAutomaticPayments } from './automatic-payments.js';
import { benchDelivery } from './delivery.js';
import { benchDescriptors } from './descriptors.js';
import { benchFailover } from './failover.js';
import { benchMemory } from './memory.js';
import { benchOAuth } from './oauth.js';
import { benchParallelSuites } from './parallel-suites.js';
import { benchPaymentList } from './payment-list.js';
import { benchPooler } from './pooler.js';
import { benchRequestLog } from './request-log.js';
import { benchSandboxAccounts } from './sandbox-accounts.js';
import { benchSandboxFaults } from './sandbox-faults.js';
import { benchStartup } from './startup.js';
import { benchYearsOfData } from './years-of-data.js';

// PostgreSQL runs use this server (each scenario creates and drops its own database).
process.env.BENCH_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';

const sections: [string, () => Promise<string>][] = [
  ['startup', benchStartup],
  ['api', benchApi],
  ['request-log', benchRequestLog],
  ['sandbox-faults', benchSandboxFaults],
  ['pooler', benchPooler],
  ['oauth', benchOAuth],
  ['delivery', benchDelivery],
  ['automatic-payments', benchAutomaticPayments],
  ['descriptors', benchDescriptors],
  ['memory', benchMemory],
  ['payment-list', benchPaymentList],
  ['failover', benchFailover],
  ['account-snapshots', benchAccountSnapshots],
  ['sandbox-accounts', benchSandboxAccounts],
  ['parallel-suites', benchParallelSuites],
  ['years-of-data', benchYearsOfData],
];

const only = process.argv[2];
const started = new Date();
const parts: string[] = [];
for (const [name, bench] of sections) {
  if (only && only !== name) continue;
  console.error(`bench: ${name}...`);
  const section = await bench();
  console.log(section);
  parts.push(section);
}
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const header = [
  '# Benchmarks',
  '',
  `Latest \`npm run bench\`: ${started.toISOString()} on ${os.cpus().length} × ${cpu}, Node ${process.version}. Every figure below was measured in this one run; ratios compare against baselines measured in the same run, because absolute numbers on a shared 2-core machine are noisy.`,
  '',
].join('\n');
if (!only) fs.writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), `${header}\n${parts.join('\n')}`);
