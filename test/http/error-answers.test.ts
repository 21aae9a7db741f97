// Refusals that say what to do next: which credential is missing or wrong, which content type to
// send, which methods a path takes; and an unknown path stays a 404.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const setup = useTestServer();

describe('a refused credential', () => {
  it.each([['/v3/banks'], ['/2.0/banks']])('%s: a missing key, an unknown key and an API key sent as a bearer token each say what to do', async (path) => {
    const missing = await call(setup.server.baseUrl, 'GET', path);
    const unknown = await call(setup.server.baseUrl, 'GET', path, { apiKey: '00000000-0000-4000-8000-000000000000' });
    const asBearer = await call(setup.server.baseUrl, 'GET', path, { headers: { authorization: `Bearer ${setup.account.api_key}` } });
    expect(missing.body).toEqual({
      status: 401,
      message: 'Missing credentials: send your API key in the x-api-key header (or an access token as Authorization: Bearer <token>)',
    });
    expect(unknown.body).toEqual({ status: 401, message: "Unknown API key: check the x-api-key value against your account's API key" });
    expect(asBearer.body).toEqual({
      status: 401,
      message: 'This is an API key: send it in the x-api-key header, or get an access token from POST /oauth2/token',
    });
    expect(asBearer.headers.get('www-authenticate')).toBe('Bearer realm="quipu", error="invalid_token"');
  });

  it('tells an API key in upper case as an API key too', async () => {
    const res = await call(setup.server.baseUrl, 'GET', '/v3/banks', { headers: { authorization: `Bearer ${setup.account.api_key.toUpperCase()}` } });
    expect(res.body.message).toMatch(/^This is an API key/);
  });
});

describe('a body of the wrong type', () => {
  it('is a 415 naming application/json on a JSON operation', async () => {
    for (const [type, body] of [
      ['text/plain', 'amount 1000'],
      ['application/x-www-form-urlencoded', 'amount=1000'],
      ['application/xml', '<a/>'],
    ]) {
      const res = await call(setup.server.baseUrl, 'POST', '/v3/payments', {
        apiKey: setup.account.api_key,
        headers: { 'content-type': type! },
        rawBody: body,
      });
      expect(res.status, type).toBe(415);
      expect(res.body, type).toEqual({ status: 415, message: `Unsupported Content-Type ${type}: send the body as application/json` });
    }
  });

  it('names both types where the operation takes a form or JSON (v2 refunds)', async () => {
    const res = await call(setup.server.baseUrl, 'POST', '/2.0/payments/abcdefabcdef/refunds', {
      apiKey: setup.account.api_key,
      headers: { 'content-type': 'text/plain' },
      rawBody: 'x',
    });
    expect(res.body).toEqual({
      status: 415,
      message: 'Unsupported Content-Type text/plain: send the body as application/json or application/x-www-form-urlencoded',
    });
  });
});

describe('a method the path does not take', () => {
  it.each([
    ['DELETE', '/v3/banks', 'GET, HEAD'],
    ['PUT', '/v3/payments/abcdefabcdef', 'GET, HEAD, DELETE'],
    ['GET', '/v3/payments/abcdefabcdef/refunds', 'POST'],
    ['PATCH', '/2.0/payments', 'GET, HEAD, POST'],
    ['POST', '/openapi.json', 'GET, HEAD'],
  ])('%s %s is 405 with Allow: %s, before any credential is asked for', async (method, path, allow) => {
    const res = await call(setup.server.baseUrl, method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.body).toEqual({ status: 405, message: `${method} is not allowed on ${path}: use ${allow}` });
  });

  it('leaves an unknown path a 404, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await call(setup.server.baseUrl, method, '/v3/no-such-thing');
      expect(res.status, method).toBe(404);
      expect(res.headers.get('allow'), method).toBeNull();
      expect(res.body, method).toEqual({ status: 404, message: `No operation ${method} /v3/no-such-thing` });
    }
  });
});
