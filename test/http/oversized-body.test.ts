// A body over BODY_LIMIT is answered 413 while its client is still sending it. The connection then
// closes as nginx's lingering close does (src/http/lingering-close.ts): what the client still
// sends is read and dropped, so a client that reads its answer only while or after it sends
// (undici's fetch, most SDKs) gets the 413, not a reset it would retry; and a client that never
// stops sending is cut off after LINGER_BYTES, or REQUEST_TIMEOUT_MS after its 413.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LINGER_BYTES } from '../../src/http/lingering-close.js';
import { useTestServer } from '../helpers/server.js';

const MB = 1024 * 1024;
const BODY_LIMIT = 10 * MB;

/** Each answer's status, or the error's cause (ECONNRESET, EPIPE) where fetch failed. */
async function statusOrFailure(answer: Promise<Response>): Promise<number | string> {
  try {
    const response = await answer;
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    return `fetch failed: ${String((error as Error & { cause?: { code?: string } }).cause?.code ?? error)}`;
  }
}

/** A body sent in 64 KB chunks as it is read, without Content-Length: refused once BODY_LIMIT of it has arrived. */
function streamed(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

interface Endless {
  /** What the server answered before it closed the connection. */
  answer: string;
  sent: number;
  ms: number;
}

/**
 * A client that sends a body without end, every `pauseMs` (as fast as the socket takes it at 0),
 * and keeps sending after the server has shut its side: resolves once the server closes the connection.
 */
function endlessBody(baseUrl: string, apiKey: string, pauseMs: number): Promise<Endless> {
  const { port } = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), allowHalfOpen: true });
    const piece = Buffer.alloc(pauseMs === 0 ? MB : 1024, 0x20);
    let answer = '';
    let sent = 0;
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ answer, sent, ms: Date.now() - started }));
    socket.write(
      `POST /v3/payments HTTP/1.1\r\nHost: x\r\nx-api-key: ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${100 * BODY_LIMIT}\r\n\r\n`,
    );
    const send = (): void => {
      if (socket.destroyed) return;
      sent += piece.length;
      const more = socket.write(piece);
      if (pauseMs > 0) setTimeout(send, pauseMs);
      else if (more) setImmediate(send);
      else socket.once('drain', send);
    };
    send();
  });
}

describe('a body over BODY_LIMIT', () => {
  const setup = useTestServer();
  const create = (body: RequestInit['body']) =>
    fetch(`${setup.server.baseUrl}/v3/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': setup.account.api_key },
      body,
      duplex: 'half',
    } as RequestInit);

  it('sent whole by undici fetch, 12 MB a time, gets its 413 every time', async () => {
    const body = Buffer.alloc(12 * MB, 0x20);
    const answers: (number | string)[] = [];
    for (let i = 0; i < 6; i++) answers.push(...(await Promise.all([statusOrFailure(create(body)), statusOrFailure(create(body))])));
    expect(answers).toEqual(Array(12).fill(413));
  }, 60_000);

  it('streamed by undici fetch, 40 MB without Content-Length, gets its 413 every time', async () => {
    const answers: (number | string)[] = [];
    for (let i = 0; i < 3; i++) answers.push(...(await Promise.all([statusOrFailure(create(streamed(40 * MB))), statusOrFailure(create(streamed(40 * MB)))])));
    expect(answers).toEqual(Array(6).fill(413));
  }, 60_000);

  it('that never ends is read no further than LINGER_BYTES after the 413', async () => {
    const endless = await endlessBody(setup.server.baseUrl, setup.account.api_key, 0);
    expect(endless.answer).toMatch(/^HTTP\/1\.1 413 .*\r\nconnection: close\r\n/is);
    expect(endless.sent).toBeGreaterThan(LINGER_BYTES);
    // What the socket buffers of both sides hold besides.
    expect(endless.sent).toBeLessThan(LINGER_BYTES + 32 * MB);
  }, 60_000);
});

describe('a body over BODY_LIMIT sent slowly without end', () => {
  const setup = useTestServer({ REQUEST_TIMEOUT_MS: '3000' });

  it('is cut off REQUEST_TIMEOUT_MS after its 413, with nothing written after it', async () => {
    const endless = await endlessBody(setup.server.baseUrl, setup.account.api_key, 50);
    expect(endless.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(endless.answer.match(/HTTP\/1\.1/g)).toHaveLength(1);
    expect(endless.ms).toBeGreaterThanOrEqual(3000);
    expect(endless.ms).toBeLessThan(8000);
  }, 30_000);
});
