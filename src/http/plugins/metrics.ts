// Prometheus metrics at /metrics: process figures, a latency histogram per route and status, and
// what an operator alerts on (docs/operations.md): the outbox's backlog, its oldest due message,
// recent attempts by outcome, exhausted messages, the jobs' lag and failures, and this process's
// database connections. The figures of the database are read when scraped, by collect callbacks
// sharing one read per scrape, never per request; every process of an installation reports the
// same ones.
// Public in developer mode; on a production installation (SANDBOX=false) they tell an outsider the
// traffic per route and a brute force's progress, so they answer only to the operator's token
// (scrape with `authorization: Bearer <OPERATOR_TOKEN>`), slowed and logged like the operator API.
import type { FastifyInstance } from 'fastify';
import client from 'prom-client';
import type { AppContext } from '../../app/context.js';
import { MESSAGE_KIND_NAMES } from '../../domain/message-kinds.js';
import { wallClockMs } from '../../runtime/wall-clock.js';
import { connectionUse } from '../../store/database.js';
import { listJobRows } from '../../store/jobs.js';
import { BACKLOG_STATES, readOutboxGauges } from '../../store/operator-gauges.js';
import { logOperatorCall, requireOperator } from '../operator/auth.js';
import { RouteLatency } from './route-latency.js';

/** How far back quipu_outbox_attempts_last_5m counts. */
const ATTEMPTS_WINDOW_MS = 5 * 60_000;
const ATTEMPT_OUTCOMES = ['delivered', 'failed'] as const;

export function metricsPlugin(app: FastifyInstance, options: { public: boolean; ctx: AppContext }): void {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'quipu_' });
  const latency = new RouteLatency(
    'quipu_http_request_duration_seconds',
    'HTTP request latency by route and status',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registry,
  );
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label so scanners cannot grow the series without bound.
    latency.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  operatorGauges(registry, options.ctx);
  connectionGauges(registry, options.ctx);
  const guarded = options.public ? {} : { onRequest: requireOperator, onResponse: logOperatorCall };
  app.get('/metrics', { schema: { hide: true }, ...guarded }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}

/**
 * One read shared by every caller until it settles: a scrape calls every collect callback at once,
 * so all of them share the queries of one read. A failed read is logged and leaves the gauges empty.
 */
function perScrape<T>(ctx: AppContext, read: () => Promise<T>): () => Promise<T | undefined> {
  let pending: Promise<T | undefined> | undefined;
  return () =>
    (pending ??= read()
      .catch((error: unknown) => {
        ctx.log.warn({ err: error }, 'metrics: the database could not be read');
        return undefined;
      })
      .finally(() => (pending = undefined)));
}

function operatorGauges(registry: client.Registry, ctx: AppContext): void {
  const read = perScrape(ctx, async () => {
    const now = ctx.clock.now().getTime();
    const outbox = await readOutboxGauges(ctx.db, { now, wallNow: wallClockMs(ctx.clock), attemptsSince: now - ATTEMPTS_WINDOW_MS });
    return { now, outbox, jobs: await listJobRows(ctx.db) };
  });
  type Figures = NonNullable<Awaited<ReturnType<typeof read>>>;
  type Set = (labels: Record<string, string>, value: number) => void;
  /** A gauge filled from the scrape's one read of the database; left empty when that read failed. */
  const gauge = (name: string, help: string, labelNames: readonly string[], fill: (set: Set, figures: Figures) => void) =>
    new client.Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        const figures = await read();
        if (figures) fill((labels, value) => this.set(labels, value), figures);
      },
    });
  gauge(
    'quipu_outbox_backlog',
    'Pending messages by kind and state: due (waiting for a worker), in_flight (claimed by one), scheduled (a retry, due later)',
    ['kind', 'state'],
    (set, { outbox }) => {
      for (const kind of MESSAGE_KIND_NAMES) for (const state of BACKLOG_STATES) set({ kind, state }, 0);
      for (const { kind, state, count } of outbox.backlog) set({ kind, state }, count);
    },
  );
  gauge(
    'quipu_outbox_oldest_due_seconds',
    'How long the pending message due longest ago has been due (developer clock); 0 when none is due',
    [],
    (set, { now, outbox }) => set({}, outbox.oldestDueAt === null ? 0 : Math.max(0, now - outbox.oldestDueAt) / 1000),
  );
  gauge('quipu_outbox_exhausted', 'Messages whose retries ran out undelivered, by kind (a resend makes one pending again)', ['kind'], (set, { outbox }) => {
    for (const kind of MESSAGE_KIND_NAMES) set({ kind }, 0);
    for (const { kind, count } of outbox.exhausted) set({ kind }, count);
  });
  gauge(
    'quipu_outbox_attempts_last_5m',
    'Delivery attempts started in the last five minutes (developer clock), by outcome, by every worker of the installation',
    ['outcome'],
    (set, { outbox }) => {
      for (const outcome of ATTEMPT_OUTCOMES) set({ outcome }, 0);
      for (const { outcome, count } of outbox.attempts) set({ outcome }, count);
    },
  );
  gauge(
    'quipu_job_lag_seconds',
    'How long ago each background job fell due (developer clock), a run in progress included; 0 when it is not due yet',
    ['job'],
    (set, { now, jobs }) => {
      for (const job of jobs) set({ job: job.name }, Math.max(0, now - job.run_at) / 1000);
    },
  );
  gauge('quipu_job_failing', "1 when a background job's latest finished run failed (quipu jobs list shows the error), else 0", ['job'], (set, { jobs }) => {
    for (const job of jobs) set({ job: job.name }, job.last_error_at !== null && job.last_error_at === job.last_finished_at ? 1 : 0);
  });
  gauge(
    'quipu_job_last_error_timestamp_seconds',
    "When a background job's latest failed run ended (developer clock, Unix seconds); absent for a job that never failed",
    ['job'],
    (set, { jobs }) => {
      for (const job of jobs) if (job.last_error_at !== null) set({ job: job.name }, job.last_error_at / 1000);
    },
  );
}

/** This process's own connections: read from the pool (PostgreSQL) or the one connection's queue (SQLite), no query. */
function connectionGauges(registry: client.Registry, ctx: AppContext): void {
  const gauge = (name: string, help: string, value: (use: NonNullable<ReturnType<typeof connectionUse>>) => number) =>
    new client.Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const use = connectionUse(ctx.db);
        if (use) this.set(value(use));
      },
    });
  gauge('quipu_db_pool_size', 'Database connections this process may open: DB_POOL_SIZE on PostgreSQL, 1 on SQLite', (use) => use.size);
  gauge('quipu_db_pool_in_use', 'Database connections of this process held by a query or a transaction', (use) => use.inUse);
  gauge('quipu_db_pool_waiting', 'Queries and transactions of this process waiting for a database connection', (use) => use.waiting);
}
