// Where the worker runs: inside `quipu serve` unless RUN_WORKER is off, or alone as `quipu worker`,
// which stops gracefully on SIGTERM.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/app/create-merchant.js';
import { loadConfig } from '../../src/config.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { reconciledPaymentIn } from '../helpers/delivery.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { BIN, freePort, startServerProcess, waitForHttp, type ServerProcess } from '../helpers/process.js';

let database: TestDatabase;
let runtime: Runtime;
let receiver: Receiver;
let env: Record<string, string>;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startReceiver();
  env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', DEMO_ACCOUNT: 'false', DELIVERY_POLL_MS: '50' };
  runtime = await startRuntime(loadConfig(env), createLogger('silent', 2));
});
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL');
  await runtime?.close();
  await receiver?.close();
  await database?.drop();
});

const statuses = () => runtime.ctx.db.selectFrom('notifications').select('status').execute();

describe('worker processes', () => {
  it('serve delivers by default; with RUN_WORKER=false it leaves delivery to `quipu worker`', async () => {
    const { merchant } = await createMerchant(runtime.ctx, { name: 'Shop', developer: true, notifyUrl: receiver.url });
    const port = await freePort();
    const server = startServerProcess({ ...env, PORT: String(port) });
    servers.push(server);
    await waitForHttp(`http://127.0.0.1:${port}/healthz`);
    await server.waitFor('notification delivery worker started');
    await reconciledPaymentIn(runtime.ctx, merchant);
    await eventually(statuses, (rows) => rows.length === 1 && rows[0]!.status === 'delivered');
    await server.stop('SIGTERM');

    const apiOnlyPort = await freePort();
    const apiOnly = startServerProcess({ ...env, PORT: String(apiOnlyPort), RUN_WORKER: 'false' });
    servers.push(apiOnly);
    await waitForHttp(`http://127.0.0.1:${apiOnlyPort}/healthz`);
    for (let i = 0; i < 5; i++) await reconciledPaymentIn(runtime.ctx, merchant);
    expect(apiOnly.output()).not.toContain('notification delivery worker started');

    const worker = spawn(process.execPath, [BIN, 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    worker.stdout.on('data', (d) => (output += d));
    worker.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    await eventually(statuses, (rows) => rows.length === 6 && rows.every((r) => r.status === 'delivered'), 30_000);
    expect(output).toContain('notification delivery worker started');
    worker.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('shutting down');
    expect(receiver.requests).toHaveLength(6);
  }, 120_000);
});
