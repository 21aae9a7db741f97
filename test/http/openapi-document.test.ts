// The generated OpenAPI document declares what the v3 operations answer and take beyond success.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let doc: { paths: Record<string, any>; components: { schemas: Record<string, any> } };
beforeAll(async () => {
  server = await startTestServer();
  doc = (await call(server.baseUrl, 'GET', '/openapi.json')).body;
});
afterAll(async () => server?.close());

const v3Operations = () =>
  Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/v3/'))
    .flatMap(([path, methods]) => Object.entries(methods as Record<string, any>).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

describe('OpenAPI document', () => {
  it('declares 400, 401 and 500 with the shared error schema on every v3 operation', () => {
    const ref: string = doc.paths['/v3/banks'].get.responses['400'].content['application/json'].schema.$ref;
    const shared = doc.components.schemas[ref.replace('#/components/schemas/', '')];
    expect(Object.keys(shared.properties).sort()).toEqual(['errors', 'message', 'status']);
    expect(v3Operations().length).toBeGreaterThanOrEqual(8);
    for (const { name, op } of v3Operations()) {
      for (const status of ['400', '401', '500']) {
        expect(op.responses[status]?.content['application/json'].schema.$ref, `${name} ${status}`).toBe(ref);
      }
    }
  });

  it('declares 403, 404, 409, 413, 415 and 422 where they apply', () => {
    const refunds = doc.paths['/v3/payments/{id}/refunds'].post.responses;
    for (const status of ['403', '404', '409', '413', '415', '422']) expect(refunds[status], status).toBeDefined();
    const get = doc.paths['/v3/payments/{id}'].get.responses;
    expect(get['404']).toBeDefined();
    expect(get['409']).toBeUndefined();
    expect(doc.paths['/v3/banks'].get.responses['404']).toBeUndefined();
  });

  it('documents Idempotency-Key as an optional header on the idempotent POSTs', () => {
    for (const path of ['/v3/payments', '/v3/payments/{id}/confirm', '/v3/payments/{id}/refunds', '/v3/receivers']) {
      const header = doc.paths[path].post.parameters.find((p: { in: string; name: string }) => p.in === 'header' && p.name === 'idempotency-key');
      expect(header, path).toMatchObject({ required: false, schema: { type: 'string' } });
    }
    expect(doc.paths['/v3/payments/{id}'].get.parameters.some((p: { in: string }) => p.in === 'header')).toBe(false);
  });

  it('declares the bodies of confirm and refunds optional, as the provider does, and the others required', () => {
    for (const path of ['/v3/payments/{id}/confirm', '/v3/payments/{id}/refunds']) {
      expect(doc.paths[path].post.requestBody.required, path).toBe(false);
      expect(doc.paths[path].post['x-optional-body'], path).toBeUndefined();
    }
    expect(doc.paths['/v3/payments'].post.requestBody.required).toBe(true);
    expect(doc.paths['/v3/receivers'].post.requestBody.required).toBe(true);
  });

  it('still serialises error replies: errors[] on a field 400, none on a 401 or a 404', async () => {
    const unauthenticated = await call(server.baseUrl, 'GET', '/v3/banks');
    expect(unauthenticated.body).toEqual({ status: 401, message: expect.stringContaining('x-api-key') });
    const account = await server.account();
    const missing = await call(server.baseUrl, 'GET', '/v3/payments/nosuchpayment', { apiKey: account.api_key });
    expect(missing.status).toBe(404);
    expect(missing.body.errors).toBeUndefined();
    const invalid = await call(server.baseUrl, 'POST', '/v3/payments/x/refunds', { apiKey: account.api_key, body: { amount: 'ten' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual([{ field: 'amount', message: expect.any(String) }]);
  });
});
