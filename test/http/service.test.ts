// What operators and tools read: health, readiness, metrics and the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_REQUEST_FIELDS } from '../../src/domain/payment-request.js';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('service endpoints', () => {
  it('answers /healthz and /readyz', async () => {
    expect((await call(server.baseUrl, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(server.baseUrl, 'GET', '/readyz')).body).toEqual({ status: 'ok' });
  });

  it('exposes Prometheus metrics including request latency per route', async () => {
    await call(server.baseUrl, 'GET', '/v3/banks');
    const res = await fetch(`${server.baseUrl}/metrics`);
    const text = await res.text();
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(text).toContain('quipu_process_resident_memory_bytes');
    expect(text).toMatch(/quipu_http_request_duration_seconds_count\{method="GET",route="\/v3\/banks",status="401"\} \d+/);
  });

  it('serves the OpenAPI document generated from the route schemas, and its browser', async () => {
    const doc = (await call(server.baseUrl, 'GET', '/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/v3/banks', '/v3/payments', '/v3/payments/{id}', '/v3/payments/{id}/confirm', '/v3/payments/{id}/refunds', '/v3/predict', '/v3/receivers', '/v3/merchants/{id}/paymentMethods']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const create = doc.paths['/v3/payments'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(create.properties).sort()).toEqual(Object.keys(PAYMENT_REQUEST_FIELDS.v3).sort());
    expect(create.properties.subject.maxLength).toBe(255);
    expect(doc.components.securitySchemes['Api-Key']).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.paths['/healthz']).toBeUndefined();
    const ui = await fetch(`${server.baseUrl}/docs`, { redirect: 'follow' });
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });
});
