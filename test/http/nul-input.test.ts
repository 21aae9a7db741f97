// A NUL (U+0000) in any text a request carries (but an unknown JSON member a route ignores, with
// whatever it holds) is refused before anything reads it, on both databases: a field is a 400
// naming it, a path id is a 404, and nothing is written. The sweep covers every route the running
// server registered, so a new one cannot slip past.
import { describe, expect, it } from 'vitest';
import { call, rawExchange } from '../helpers/http.js';
import { authorizeParams, basicAuth, FORM, formPost, registerRedirectUris } from '../helpers/oauth.js';
import { everyTableCount } from '../helpers/payments.js';
import { concretePath, registeredRoutes } from '../helpers/routes.js';
import { useTestServer } from '../helpers/server.js';

const OPERATOR_TOKEN = 'operator-token-for-the-nul-refusal-tests';

const setup = useTestServer({ OPERATOR_TOKEN });

const rowCounts = () => everyTableCount(setup.server.ctx.db);

/** The operator's routes and the sandbox's accounts answer to the operator's token; the rest to an account's key. */
const credentials = (url: string): Record<string, string> =>
  url.startsWith('/operator/') || url.startsWith('/sandbox/accounts') ? { authorization: `Bearer ${OPERATOR_TOKEN}` } : { 'x-api-key': setup.account.api_key };

async function send(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${setup.server.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, text, ignored: res.headers.get('quipu-ignored-fields') };
}

describe('a NUL in a request', () => {
  it('in a v3 JSON field: 400 naming the field, no payment', async () => {
    const before = await rowCounts();
    const res = await call(setup.server.baseUrl, 'POST', '/v3/payments', {
      apiKey: setup.account.api_key,
      rawBody: '{"amount":1000,"currency":"CLP","subject":"a\\u0000b"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'subject', message: expect.stringContaining('NUL') }]);
    expect(await rowCounts()).toEqual(before);
  });

  it('in a nested member or a member name: the member, or its object, is named', async () => {
    const nested = await call(setup.server.baseUrl, 'POST', '/operator/v1/credits', {
      body: { credits: [{ bank_reference: 'mov\u0000' }] },
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(nested.status).toBe(400);
    expect(nested.body.errors[0].field).toBe('credits.0.bank_reference');
    const named = await call(setup.server.baseUrl, 'POST', '/operator/v1/credits', {
      body: { credits: [{ 'a\u0000': 1 }] },
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(named.status).toBe(400);
    expect(named.body.errors[0].field).toBe('credits.0');
  });

  it('in a path id: 404', async () => {
    const res = await call(setup.server.baseUrl, 'GET', '/v3/payments/%00', { apiKey: setup.account.api_key });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404 });
  });

  it('as a byte of the request line: refused by the HTTP parser, before any route (so the hook looks for it percent-encoded only)', async () => {
    const before = await rowCounts();
    for (const target of ['/v3/payments/a\u0000b', '/2.0/payments?notification_token=a\u0000b']) {
      const answer = await rawExchange(setup.server.baseUrl, `GET ${target} HTTP/1.1\r\nHost: x\r\nx-api-key: ${setup.account.api_key}\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('in a v2 query or form: 400 naming the field, in v2 shape', async () => {
    const query = await call(setup.server.baseUrl, 'GET', '/2.0/payments?notification_token=%00', { apiKey: setup.account.api_key });
    expect(query.status).toBe(400);
    expect(query.body).toMatchObject({ status: 400, errors: [{ field: 'notification_token' }] });
    const before = await rowCounts();
    const form = await call(setup.server.baseUrl, 'POST', '/2.0/payments', {
      apiKey: setup.account.api_key,
      rawBody: new URLSearchParams({ amount: '1000', currency: 'CLP', subject: 'a\u0000b' }).toString(),
      headers: { 'content-type': FORM },
    });
    expect(form.status).toBe(400);
    expect(form.body.errors[0].field).toBe('subject');
    expect(await rowCounts()).toEqual(before);
  });

  it('in an OAuth parameter: the authorization page and the token endpoint refuse it', async () => {
    await registerRedirectUris(setup.server, setup.account, ['https://client.example/callback']);
    const before = await rowCounts();
    const authorize = await send(
      'GET',
      `/oauth2/authorize?${new URLSearchParams(authorizeParams(setup.account, 'https://client.example/callback', { state: 'st\u0000' }))}`,
      {},
    );
    expect(authorize.status).toBe(400);
    expect(authorize.text).toContain('state');
    const token = await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials', scope: 'api\u0000' }, basicAuth(setup.account));
    expect(token.status).toBe(400);
    expect(token.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('scope') });
    expect(await rowCounts()).toEqual(before);
  });

  it('on every registered route: a path id is 404, a query or body field 400 (415 where the body type is not taken, ignored where unknown members are), nothing written', async () => {
    const before = await rowCounts();
    const failures: string[] = [];
    // HEAD routes are their GET's twins, with its hooks; their answers carry no body to tell a route from none.
    for (const { method, url } of registeredRoutes(setup.server.app).filter((route) => route.method !== 'HEAD')) {
      const headers = credentials(url);
      const expectations: [string, ReturnType<typeof send>, number[]][] = [];
      if (url.includes(':') || url.includes('*')) expectations.push(['path', send(method, concretePath(url, '%00'), headers), [404]]);
      const path = concretePath(url);
      expectations.push(['query', send(method, `${path}?nul=a%00b`, headers), [400]]);
      if (method !== 'GET') {
        expectations.push(['JSON body', send(method, path, { ...headers, 'content-type': 'application/json' }, '{"nul":"a\\u0000b"}'), [400, 415]]);
        expectations.push(['form body', send(method, path, { ...headers, 'content-type': FORM }, 'nul=a%00b'), [400, 415]]);
      }
      for (const [part, answer, statuses] of expectations) {
        const { status, text, ignored } = await answer;
        // A route the helper cannot reach with a made-up value (the docs' static files under /docs/static/).
        if (status === 404 && text.includes('"No operation ')) continue;
        // A route that ignores unknown members ignores `nul` whatever it holds; a NUL in its own fields is tested with them.
        if (part !== 'path' && ignored === 'nul' && status < 500) continue;
        if (!statuses.includes(status)) failures.push(`${method} ${url} (${part}): ${status}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await rowCounts()).toEqual(before);
  });
});
