// Sends one message over HTTP (undici, keep-alive) and reports what happened: only a 200 is
// a delivery; redirects are not followed; every request has a timeout (deadlines.ts). Accounts
// that may not notify private addresses (production accounts; every account when SANDBOX=false)
// go through a guarded connector that refuses non-public addresses, and the others through one
// that refuses link-local addresses unless the operator allows them, each judged on the address
// the socket actually connects to (the resolved one), so a name that resolves differently at
// delivery time (DNS rebinding) cannot reach the internal network or a cloud's metadata service.
//
// Requests go through undici's dispatch interface rather than request(): no response stream and
// no abort signal per request, which measured at half the client-side cost per message. undici is
// loaded with the first request sent: loading it took about 80 ms of every server's start.
import dns from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Agent, buildConnector as BuildConnector, Dispatcher } from 'undici';
import { type AddressReach, addressScope, beyondReach, hostBeyondReach, reachRule } from '../domain/network-address.js';
import { neverResolvesReason } from '../domain/stand-in-receivers.js';
import { DeadlineExceeded, Deadlines, type Expirable } from './deadlines.js';
import { requestHeaders } from './request-headers.js';

export interface OutgoingRequest {
  url: string;
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

/** What an attempt came to, whatever the channel. */
export interface SendResult {
  delivered: boolean;
  /** The HTTP status, or the SMTP server's reply code. */
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  latencyMs: number;
  retryAfter: string | undefined;
}

const EXCERPT_CHARS = 500;
/** Larger answers are cut off (the connection is dropped rather than read to the end). */
const MAX_READ_BYTES = 64 * 1024;

export class RefusedAddressError extends Error {
  readonly code = 'QUIPU_REFUSED_ADDRESS';

  /** `reach`: the account's rule the host broke, named after the reason; none for a name nothing may reach. */
  constructor(host: string, reason: string, reach?: AddressReach) {
    super(`refused: ${host} ${reason}${reach ? `; ${reachRule(reach)}` : ''}`);
  }
}

/** dns.lookup, failing when any address the name resolves to is beyond `reach`. */
const lookupWithin =
  (reach: AddressReach): LookupFunction =>
  (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const bad = addresses.find((a) => beyondReach(addressScope(a.address)!, reach));
      if (bad) return callback(new RefusedAddressError(hostname, `resolves to ${bad.address}, a ${addressScope(bad.address)} address`, reach), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

function guardedConnector(buildConnector: typeof BuildConnector, timeoutMs: number, reach: AddressReach): BuildConnector.connector {
  const connect = buildConnector({ lookup: lookupWithin(reach), timeout: timeoutMs });
  return (options, callback) => {
    const never = neverResolvesReason(options.hostname);
    if (never) return callback(new RefusedAddressError(options.hostname, never), null);
    // An address literal is connected to without a lookup: judge it here.
    const reason = hostBeyondReach(options.hostname, reach);
    if (reason) return callback(new RefusedAddressError(options.hostname, reason, reach), null);
    return connect(options, callback);
  };
}

function describeError(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string } };
  if (e instanceof RefusedAddressError) return e.message;
  if (e instanceof DeadlineExceeded) return `timeout: ${e.message}`;
  if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return `timeout: ${e.message}`;
  const code = e.code ?? e.cause?.code;
  const message = e.message ?? String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  excerpt: string;
}

/** One request and its answer: the beginning of the body is kept, the rest read and dropped so the connection is reused. */
class Exchange implements Dispatcher.DispatchHandler, Expirable {
  readonly answer: Promise<Answer>;
  #resolve!: (answer: Answer) => void;
  #reject!: (error: Error) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #expired: DeadlineExceeded | undefined;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #read = 0;
  #cutOff = false;

  constructor() {
    this.answer = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A deadline may expire before the answer is awaited (while undici loads): send() still sees it there.
    this.answer.catch(() => {});
  }

  expire(reason: DeadlineExceeded): void {
    this.#expired = reason;
    this.#controller?.abort(reason);
    this.#reject(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#expired) controller.abort(this.#expired);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // 1xx answers are interim: the real one follows.
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#read += chunk.length;
    if (this.#kept < EXCERPT_CHARS * 4) {
      this.#chunks.push(chunk);
      this.#kept += chunk.length;
    }
    if (this.#read > MAX_READ_BYTES) {
      this.#cutOff = true;
      this.#finish();
      controller.abort(new Error('answer too large'));
    }
  }

  onResponseEnd(): void {
    this.#finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (!this.#cutOff) this.#reject(error);
  }

  #finish(): void {
    this.#resolve({ status: this.#status, headers: this.#headers, excerpt: Buffer.concat(this.#chunks).toString('utf8').slice(0, EXCERPT_CHARS) });
  }
}

/** An agent per reach: each connects only within its own. */
type Agents = Record<AddressReach, Agent>;

export class HttpSender {
  #agents: Promise<Agents> | undefined;
  readonly #timeoutMs: number;
  readonly #connectionsPerOrigin: number;
  readonly #deadlines: Deadlines;

  /** `connectionsPerOrigin`: the worker's cap of requests in flight per destination, which is an origin. */
  constructor(timeoutMs: number, connectionsPerOrigin: number) {
    this.#timeoutMs = timeoutMs;
    this.#connectionsPerOrigin = connectionsPerOrigin;
    this.#deadlines = new Deadlines(timeoutMs);
  }

  #loadAgents(): Promise<Agents> {
    // undici is CommonJS: bundled (scripts/build.js), its dynamic import has only the default export.
    this.#agents ??= import('undici').then(({ default: { Agent, buildConnector } }) => {
      const options = { connections: this.#connectionsPerOrigin, keepAliveTimeout: 30_000, connectTimeout: this.#timeoutMs };
      const within = (reach: AddressReach) => new Agent({ ...options, connect: guardedConnector(buildConnector, this.#timeoutMs, reach) });
      return { any: new Agent(options), private: within('private'), public: within('public') };
    });
    return this.#agents;
  }

  /** Connects only to addresses within `reach` (network-address.ts). Never throws: a failure is a result. */
  async send(outgoing: OutgoingRequest, reach: AddressReach): Promise<SendResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const exchange = new Exchange();
    this.#deadlines.track(exchange);
    try {
      // Within the deadline: the worker checked its lease against the timeout, so undici's first
      // load must not make an attempt outlast it (an attempt that expires meanwhile is aborted as it starts).
      const agents = await this.#loadAgents();
      const url = new URL(outgoing.url);
      agents[reach].dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: requestHeaders(outgoing.contentType, outgoing.headers),
          body: outgoing.body,
        },
        exchange,
      );
      const { status, headers, excerpt } = await exchange.answer;
      const retryAfter = headers['retry-after'];
      return {
        delivered: status === 200,
        statusCode: status,
        error: status === 200 ? null : `HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`,
        responseExcerpt: excerpt,
        latencyMs: latency(),
        retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
      };
    } catch (error) {
      return { delivered: false, statusCode: null, error: describeError(error), responseExcerpt: null, latencyMs: latency(), retryAfter: undefined };
    } finally {
      this.#deadlines.release(exchange);
    }
  }

  async close(): Promise<void> {
    if (!this.#agents) return;
    await Promise.all(Object.values(await this.#agents).map((agent) => agent.close()));
  }
}
