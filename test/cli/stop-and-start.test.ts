// How a production server starts and stops, as its operator and load balancer see it: told to stop
// (SIGTERM) it drains for SHUTDOWN_DRAIN_MS, /readyz answering 503 while every other request, on
// new connections too, is still served, then closes and exits 0. Without OPERATOR_TOKEN it says at
// start that the operator API is off; a token too short stops the start.
import { once } from 'node:events';
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { logLines, quipu, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { PRODUCTION_SETTINGS, secretFileSetting } from '../helpers/production.js';

const processes = withServerProcesses();
const production = (settings: Record<string, string> = {}) => ({
  DATABASE_URL: processes.database.url,
  DATA_DIR: processes.database.dataDir,
  LOG_LEVEL: 'info',
  ...PRODUCTION_SETTINGS,
  ...settings,
});
const OPERATOR_API_OFF = /OPERATOR_TOKEN is not set: the operator API \(\/operator\/v1\) and \/metrics answer 403/;

/** A GET on a connection of its own: the listener must still take new ones. */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
      .on('error', reject);
  });
}

describe('SHUTDOWN_DRAIN_MS', () => {
  it('is 0 in developer mode, so restarts stay quick, and 5 s with SANDBOX=false', () => {
    expect(loadConfig({}).shutdownDrainMs).toBe(0);
    const { SHUTDOWN_DRAIN_MS: _drain, ...installation } = PRODUCTION_SETTINGS;
    expect(loadConfig(installation).shutdownDrainMs).toBe(5_000);
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: '250' }).shutdownDrainMs).toBe(250);
    expect(() => loadConfig({ SHUTDOWN_DRAIN_MS: 'soon' })).toThrow('SHUTDOWN_DRAIN_MS must be a whole number, got "soon"');
  });
});

describe('a production server', { timeout: 120_000 }, () => {
  it('without OPERATOR_TOKEN warns that the operator API is off; on SIGTERM it is not ready but still serving, until a second signal ends the drain', async () => {
    const server = await serveOnFreePort(production({ SHUTDOWN_DRAIN_MS: '300000' }), processes.started);
    const exited = once(server.child, 'exit');
    try {
      await server.waitFor(OPERATOR_API_OFF);
      expect(logLines(server).find((line) => OPERATOR_API_OFF.test(String(line.msg)))).toMatchObject({ level: 40 });
      expect(await freshGet(`${server.baseUrl}/readyz`)).toBe(200);

      server.child.kill('SIGTERM');
      await expect.poll(() => freshGet(`${server.baseUrl}/readyz`), { timeout: 30_000 }).toBe(503);
      expect(await freshGet(`${server.baseUrl}/healthz`)).toBe(200);
      expect(await freshGet(`${server.baseUrl}/v3/banks`)).toBe(401);
      expect(logLines(server).find((line) => String(line.msg).startsWith('shutting down'))).toMatchObject({ signal: 'SIGTERM', drainMs: 300_000 });
    } finally {
      // The second signal ends the drain (the first one too, should the test have failed before it).
      server.child.kill('SIGTERM');
      server.child.kill('SIGTERM');
    }
    expect(await exited).toEqual([0, null]);
  });

  it('with OPERATOR_TOKEN says nothing of it, and exits 0 once its drain is over', async () => {
    const server = await serveOnFreePort(
      production({ ...secretFileSetting('OPERATOR_TOKEN', 'a-long-enough-operator-token-for-this-test'), SHUTDOWN_DRAIN_MS: '1000' }),
      processes.started,
    );
    await server.waitFor('quipu is listening');
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
    expect(logLines(server).find((line) => String(line.msg).startsWith('shutting down'))).toMatchObject({ signal: 'SIGTERM', drainMs: 1_000 });
    expect(server.output()).not.toMatch(/OPERATOR_TOKEN is not set/);
  });

  it('with a short OPERATOR_TOKEN does not start', async () => {
    const refused = await quipu(['serve'], production({ OPERATOR_TOKEN: 'short' }));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('OPERATOR_TOKEN must be at least 32 characters (it has 5)');
  });
});
