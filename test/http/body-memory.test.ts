// Bodies at the size limit, many at once: the contract allows `custom` up to 1 GiB and Quipu takes
// bodies up to BODY_LIMIT (10 MiB by default). Twenty such bodies sent together leave the server's
// peak resident memory under the bound docs/security.md states, and a request beside them is
// answered. Measured on a server process of its own (Linux /proc), so the test runner's memory does
// not count.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { logLines, serveOnFreePort, withServerProcesses } from '../helpers/process.js';

const BODY_LIMIT = 10 * 1024 * 1024;
/** Peak resident memory a server may grow by while it reads twenty bodies at the limit (docs/security.md). */
const PEAK_GROWTH_BOUND_MB = 500;

const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

describe('twenty bodies at the limit at once', () => {
  const processes = withServerProcesses();

  it.skipIf(process.platform !== 'linux')(
    'stay under the memory bound, and a request beside them is answered',
    async () => {
      const { database, started } = processes;
      const quipu = await serveOnFreePort({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, RUN_WORKER: 'false', LOG_LEVEL: 'warn' }, started);
      const apiKey = /api_key\s+(\S+)/.exec(await quipu.waitFor(/API reference/))![1]!;
      const before = peakRssMb(quipu.child.pid!);
      // A body just under the limit whose amount is refused once it is read: nothing is stored.
      const body = JSON.stringify({ amount: 'x', currency: 'CLP', subject: 's', custom: '' });
      const custom = 'c'.repeat(BODY_LIMIT - body.length - 1024);
      const payload = JSON.stringify({ amount: 'x', currency: 'CLP', subject: 's', custom });
      const sends = Array.from({ length: 20 }, () =>
        fetch(`${quipu.baseUrl}/v3/payments`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: payload }).then(
          (r) => r.status,
        ),
      );
      const beside = await fetch(`${quipu.baseUrl}/healthz`);
      expect(beside.status).toBe(200);
      expect(await Promise.all(sends)).toEqual(Array.from({ length: 20 }, () => 400));
      const growth = peakRssMb(quipu.child.pid!) - before;
      expect(growth).toBeLessThan(PEAK_GROWTH_BOUND_MB);
      expect(logLines(quipu).filter((line) => Number(line.level) >= 50)).toEqual([]);
    },
    120_000,
  );
});
