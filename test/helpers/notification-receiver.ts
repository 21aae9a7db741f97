// A merchant's notification endpoint: a real node:http server on port 0 that records every request
// (raw body included) and answers as the test tells it to.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer only when this promise settles (a slow or hanging receiver). */
  after?: Promise<unknown>;
}

export type Responder = (request: ReceivedRequest) => Answer;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Requests received and not answered yet. */
  open(): number;
  answer(responder: Responder): void;
  /** Resolves once `predicate` holds for the requests received so far. */
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const OK: Responder = () => ({ status: 200, body: 'ok' });

/** `port`: a receiver that comes back up where an earlier one was closed (0: any free port). */
export async function startReceiver(responder: Responder = OK, port = 0): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let current = responder;
  let open = 0;
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = { method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(received);
      open++;
      for (const wake of waiters) wake();
      const answer = current(received);
      const send = () => {
        open--;
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
      };
      if (answer.after) void answer.after.then(send, send);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const listening = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${listening}/notify`,
    requests,
    open: () => open,
    answer: (next) => {
      current = next;
    },
    waitFor: (predicate, timeoutMs = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(requests)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${requests.length} requests)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `read` until `done` holds for its value; for state kept in the database. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Whether the request carries a valid x-khipu-signature (`t=<ms>,s=<base64 HMAC-SHA256 of "t.body">`) under `secret`. */
export function signedBy(secret: string, request: ReceivedRequest): boolean {
  const [, t, s] = /^t=(\d+),s=(.+)$/.exec(String(request.headers['x-khipu-signature'])) ?? [];
  return s !== undefined && createHmac('sha256', secret).update(`${t}.${request.body}`).digest('base64') === s;
}
