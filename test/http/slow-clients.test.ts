// Slow clients hold connections, and connections hold file descriptors: one address gets at most
// MAX_CONNECTIONS_PER_ADDRESS of them, and a request whose headers or body trickle in is closed
// after HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS. Meanwhile other clients are answered. The
// slow clients connect from other loopback addresses (127.0.0.2 and up), so that the server tells
// them from the test's own requests and each test's from the others'.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const CAP = 20;
let server: TestServer;
let account: TestAccount;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startTestServer({ MAX_CONNECTIONS_PER_ADDRESS: String(CAP), HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' });
  account = await server.account();
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await server?.close();
});

/** A connection from `from` that has sent `text` and nothing more; resolves once connected, with a promise of its close. */
function slowClient(text: string, from = '127.0.0.2', target = server): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { port } = new URL(target.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: from }, () => {
      socket.write(text);
      resolve({ socket, closed });
    });
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
    socket.on('error', () => {});
    socket.once('error', reject);
    sockets.push(socket);
  });
}

/** A create whose headers are whole and authenticated, and whose body stops after a few bytes. */
const partialBody = (apiKey = account.api_key) =>
  `POST /v3/payments HTTP/1.1\r\nHost: x\r\nx-api-key: ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"amount":`;

describe('slow clients', () => {
  it(`one address holds at most ${CAP} connections: the others are closed at once, and other clients are answered meanwhile`, async () => {
    const slow = await Promise.all(Array.from({ length: CAP * 3 }, () => slowClient(partialBody())));
    const closedAtOnce = await Promise.all(
      slow.map(({ closed }) => Promise.race([closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 500))])),
    );
    expect(closedAtOnce.filter(Boolean).length).toBe(CAP * 2);
    const created = await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'while they trickle' });
    expect(created.status).toBe(200);
    for (const { socket } of slow) socket.destroy();
  });

  it('a body that never finishes is answered 408 and closed', async () => {
    const { closed } = await slowClient(partialBody(), '127.0.0.3');
    expect(await closed).toMatch(/^HTTP\/1\.1 408/);
  });

  it('headers that never finish are closed', async () => {
    const { closed } = await slowClient('GET /healthz HTTP/1.1\r\nHost: x\r\n', '127.0.0.4');
    expect(await closed).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe('many slow clients at once', () => {
  // Slow bodies are held as long as a real installation holds them, so only the cap could close one.
  const patient = {} as { server: TestServer; account: TestAccount };
  beforeAll(async () => {
    patient.server = await startTestServer({ MAX_CONNECTIONS_PER_ADDRESS: String(CAP), REQUEST_TIMEOUT_MS: '300000' });
    patient.account = await patient.server.account();
  });
  afterAll(async () => patient.server?.close());

  it('500 slow connections from 25 addresses, each trickling its body, while 48 other requests are all answered', async () => {
    const addresses = Array.from({ length: 25 }, (_, i) => `127.0.1.${i + 1}`);
    const slow = (
      await Promise.all(
        addresses.map((from) => Promise.all(Array.from({ length: CAP }, () => slowClient(partialBody(patient.account.api_key), from, patient.server)))),
      )
    ).flat();
    const trickle = setInterval(() => {
      for (const { socket } of slow) if (!socket.destroyed) socket.write('1');
    }, 200);
    try {
      const api = client(patient.server.baseUrl, patient.account.api_key);
      // In rounds of 8 at once: the test's own address is under the same cap, and its client's
      // idle connections count too.
      for (let round = 0; round < 6; round++) {
        const answers = await Promise.all(
          Array.from({ length: 4 }, (_, i) => [
            api.post('/v3/payments', { amount: 1000 + i, currency: 'CLP', subject: `beside 500 slow ${round}.${i}` }),
            fetch(`${patient.server.baseUrl}/healthz`).then((r) => ({ status: r.status })),
          ]).flat(),
        );
        expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 8 }, () => 200));
      }
      // None of the slow ones was closed: each address held only its share, and none timed out yet.
      expect(slow.filter(({ socket }) => socket.destroyed).length).toBe(0);
    } finally {
      clearInterval(trickle);
      for (const { socket } of slow) socket.destroy();
    }
  });
});
