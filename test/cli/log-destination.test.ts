// Logs sent to a separate system (ASVS 16.4.3): with LOG_DESTINATION, `quipu serve` sends every log
// line, each audit record included, to a collector listening on TCP, TLS (its certificate
// verified) or UDP, as well as to stdout; a collector that is down when the server starts gets the
// lines once it is up.
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { call } from '../helpers/http.js';
import { freePort, serveOnFreePort, withServerProcesses } from '../helpers/process.js';

const API_KEY = '51f210fe-2fa4-4205-b21b-f1d72d92ebb1';

const processes = withServerProcesses();

/** Lines a collector received, parsed. */
class Collector {
  readonly lines: Record<string, unknown>[] = [];
  #buffered = '';

  take(chunk: Buffer): void {
    const text = this.#buffered + chunk.toString('utf8');
    const parts = text.split('\n');
    this.#buffered = parts.pop()!;
    for (const part of parts) if (part.trim() !== '') this.lines.push(JSON.parse(part) as Record<string, unknown>);
  }

  async waitFor(predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(predicate);
      if (found) return found;
      if (Date.now() > until) throw new Error(`no such line among ${this.lines.length}: ${JSON.stringify(this.lines.slice(-5))}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** A payment created and deleted with the demo account's key: one audit record. */
async function auditedDelete(baseUrl: string): Promise<string> {
  const created = await call(baseUrl, 'POST', '/v3/payments', { apiKey: API_KEY, body: { amount: 1000, currency: 'CLP', subject: 'Logged' } });
  expect(created.status).toBe(200);
  expect((await call(baseUrl, 'DELETE', `/v3/payments/${created.body.payment_id}`, { apiKey: API_KEY })).status).toBe(200);
  return created.body.payment_id as string;
}

const serverEnv = (destination: string) => ({
  DATABASE_URL: processes.database.url,
  DATA_DIR: processes.database.dataDir,
  DEMO_API_KEY: API_KEY,
  LOG_LEVEL: 'info',
  LOG_DESTINATION: destination,
});

describe('LOG_DESTINATION', () => {
  it('sends every line over TCP, audit records included, once the collector is up', async () => {
    const collector = new Collector();
    const port = await freePort();
    // Down when the server starts: it connects when the collector comes up.
    const server = await serveOnFreePort(serverEnv(`tcp://127.0.0.1:${port}`), processes.started);
    await server.waitFor('quipu is listening');
    const listener = net.createServer((socket) => socket.on('data', (chunk: Buffer) => collector.take(chunk)));
    await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
    try {
      await collector.waitFor((line) => line.msg === 'log lines are sent to the collector');
      const paymentId = await auditedDelete(server.baseUrl);
      const record = await collector.waitFor((line) => line.msg === 'audit record');
      expect(record).toMatchObject({
        service: 'quipu',
        audit: { action: 'payment.delete', actorKind: 'api', target: expect.stringContaining(paymentId), outcome: 'ok' },
      });
      expect((record.audit as { hash: string }).hash).toMatch(/^[0-9a-f]{64}$/);
      // The same line on stdout, for whoever collects that.
      expect(server.output()).toContain('"msg":"audit record"');
      // No credential travels with the lines.
      expect(JSON.stringify(collector.lines)).not.toContain(API_KEY);
    } finally {
      await server.stop();
      await new Promise((resolve) => listener.close(resolve));
    }
  }, 90_000);

  it('sends lines over TLS to a collector whose certificate it trusts, and none to one it does not', async () => {
    // A collector's certificate from a CA of the operator's, handed to Node as NODE_EXTRA_CA_CERTS.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-collector-'));
    const [key, cert] = [path.join(folder, 'key.pem'), path.join(folder, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    const collector = new Collector();
    let handshakes = 0;
    const listener = tls.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (socket) => {
      handshakes++;
      socket.on('data', (chunk: Buffer) => collector.take(chunk));
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const destination = `tls://localhost:${(listener.address() as net.AddressInfo).port}`;
    try {
      const untrusting = await serveOnFreePort(serverEnv(destination), processes.started);
      await auditedDelete(untrusting.baseUrl);
      await untrusting.waitFor('"msg":"audit record"');
      await untrusting.stop();
      expect(handshakes).toBe(0);
      expect(collector.lines).toEqual([]);

      const trusting = await serveOnFreePort({ ...serverEnv(destination), NODE_EXTRA_CA_CERTS: cert }, processes.started);
      await auditedDelete(trusting.baseUrl);
      await collector.waitFor((line) => line.msg === 'audit record');
      await trusting.stop();
    } finally {
      await new Promise((resolve) => listener.close(resolve));
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }, 90_000);

  it('sends lines over UDP', async () => {
    const collector = new Collector();
    const socket = dgram.createSocket('udp4');
    socket.on('message', (message: Buffer) => collector.take(message));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    try {
      const server = await serveOnFreePort(serverEnv(`udp://127.0.0.1:${socket.address().port}`), processes.started);
      await collector.waitFor((line) => line.msg === 'log lines are sent to the collector');
      await auditedDelete(server.baseUrl);
      await collector.waitFor((line) => line.msg === 'audit record');
      await server.stop();
    } finally {
      socket.close();
    }
  }, 90_000);

  it('is refused at start unless it names a protocol, a host and a port', () => {
    expect(loadConfig({ LOG_DESTINATION: 'tls://logs.example:6514' }).logDestination).toEqual({ protocol: 'tls', host: 'logs.example', port: 6514 });
    expect(loadConfig({ LOG_DESTINATION: 'udp://[::1]:514' }).logDestination).toEqual({ protocol: 'udp', host: '::1', port: 514 });
    for (const wrong of ['logs.example:514', 'syslog://logs.example:514', 'tcp://logs.example', 'tcp://logs.example:0'])
      expect(() => loadConfig({ LOG_DESTINATION: wrong }), wrong).toThrow(/LOG_DESTINATION must be tcp:\/\/, tls:\/\/ or udp:\/\//);
  });
});
