import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RouteLatency } from '../../src/http/plugins/route-latency.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVATIONS: [string, string, number, number][] = [
  ['GET', '/v3/payments/:id', 200, 0.0004],
  ['GET', '/v3/payments/:id', 200, 0.001],
  ['GET', '/v3/payments/:id', 200, 0.05],
  ['GET', '/v3/payments/:id', 404, 0.002],
  ['POST', '/v3/payments', 201, 3.5],
  ['GET', 'unmatched', 404, 0.1],
];

describe('the route latency histogram', () => {
  it("reports what prom-client's Histogram reports for the same observations, a value on a bound counted in that bucket", async () => {
    const ours = new client.Registry();
    const latency = new RouteLatency('quipu_http_request_duration_seconds', 'HTTP request latency by route and status', BUCKETS, ours);
    const theirs = new client.Registry();
    const histogram = new client.Histogram({
      name: 'quipu_http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: BUCKETS,
      registers: [theirs],
    });
    for (const [method, route, status, seconds] of OBSERVATIONS) {
      latency.observe(method, route, status, seconds);
      histogram.observe({ method, route, status: String(status) }, seconds);
    }
    const lines = async (registry: client.Registry) => (await registry.metrics()).trim().split('\n').sort();
    expect(await lines(ours)).toEqual(await lines(theirs));
    expect(await ours.metrics()).toContain('quipu_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/v3/payments/:id",status="200"} 2');
    expect(await ours.metrics()).toContain('quipu_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v3/payments",status="201"} 1');
  });

  it('forgets every series on reset', async () => {
    const registry = new client.Registry();
    const latency = new RouteLatency('latency', 'help', BUCKETS, registry);
    latency.observe('GET', '/healthz', 200, 0.0001);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('latency_count');
  });
});
