// Prometheus metrics at /metrics: process figures and a latency histogram per route and status.
// Public in developer mode; on a production installation (SANDBOX=false) they tell an outsider the
// traffic per route and a brute force's progress, so they answer only to the operator's token
// (scrape with `authorization: Bearer <OPERATOR_TOKEN>`), slowed and logged like the operator API.
import type { FastifyInstance } from 'fastify';
import client from 'prom-client';
import { logOperatorCall, requireOperator } from '../operator/auth.js';

export function metricsPlugin(app: FastifyInstance, options: { public: boolean }): void {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'quipu_' });
  const duration = new client.Histogram({
    name: 'quipu_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // One child per series, looked up by a string key: labelling an observation hashes its label object each time.
  const series = new Map<string, client.Histogram.Internal<'method' | 'route' | 'status'>>();
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label so scanners cannot grow the series without bound.
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${route} ${reply.statusCode}`;
    let child = series.get(key);
    if (!child) {
      child = duration.labels(request.method, route, String(reply.statusCode));
      series.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
  const guarded = options.public ? {} : { onRequest: requireOperator, onResponse: logOperatorCall };
  app.get('/metrics', { schema: { hide: true }, ...guarded }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
