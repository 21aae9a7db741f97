// Who may call the v2 API: the request signature of the v2 clients (over the URL the client saw,
// every query and form parameter, and a JSON body), the API key and bearer token of v3, and the
// combination of an API key with a signature. Every refusal has the v2 shape and changes nothing.
import { createHmac } from 'node:crypto';
import { type Dispatcher, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, client } from '../helpers/http.js';
import { basicAuth, clientCredentialsToken, formPost } from '../helpers/oauth.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { CLIENTS, type Prepared, signWith, v2Client } from '../helpers/v2-clients.js';

let server: TestServer;
let account: TestAccount;
let other: TestAccount;
let php: ReturnType<typeof v2Client>;

beforeAll(async () => {
  server = await startTestServer();
  account = await server.account({ features: { refunds: true } });
  other = await server.account();
  php = v2Client('php', account, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/api/2.0`, prefix: '/api/2.0' });
});
afterAll(async () => server?.close());

const form = { subject: 'Pago de prueba', currency: 'CLP', amount: '1000' };

function expectRefusal(res: { status: number; body: any }, status: number, message?: RegExp) {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['message', 'status']);
  expect(res.body.status).toBe(status);
  if (message) expect(res.body.message).toMatch(message);
}

/** Sends a form body exactly as written, signed over the given parameters. */
function sendRawForm(body: string, signed: [string, string][], path = '/api/2.0/payments') {
  const hash = signWith(CLIENTS.ruby, account.secret, 'POST', `${server.config.publicBaseUrl}${path}`, signed);
  return call(server.baseUrl, 'POST', path, {
    headers: { authorization: `${account.receiver_id}:${hash}`, 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: body,
  });
}

describe('credentials', () => {
  it('answers 401 to a request with none', async () => {
    expectRefusal(await call(server.baseUrl, 'GET', '/2.0/banks'), 401);
    expectRefusal(await call(server.baseUrl, 'GET', '/api/2.0/banks', { headers: { authorization: '' } }), 401);
  });

  it('answers 403 to an Authorization header that is not a signature', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', `${account.receiver_id}:abc`, `${account.receiver_id}`, 'x:y']) {
      expectRefusal(await call(server.baseUrl, 'GET', '/2.0/banks', { headers: { authorization } }), 403, /receiver_id/);
    }
  });

  it('answers a signature of an unknown receiver exactly as one made with a wrong secret', async () => {
    const as = (receiver_id: number, secret: string) =>
      v2Client('php', { receiver_id, secret }, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });
    for (const [method, params] of [
      ['GET', undefined],
      ['POST', { form }],
    ] as const) {
      const unknown = await as(1, account.secret).request(method, '/payments', params);
      const wrongSecret = await as(account.receiver_id, other.secret).request(method, '/payments', params);
      expectRefusal(unknown, 403, /signature/);
      expect(unknown.body).toEqual(wrongSecret.body);
    }
  });

  it('looks an unknown receiver up once for forged requests that repeat it', async () => {
    const forger = v2Client(
      'java',
      { receiver_id: 2, secret: other.secret },
      { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' },
    );
    const lookups = vi.spyOn(server.ctx.merchants, 'byReceiverId');
    try {
      for (let i = 0; i < 5; i++) expectRefusal(await forger.request('GET', '/banks'), 403, /signature/);
      expect(lookups.mock.calls.filter(([id]) => id === 2)).toHaveLength(1);
      // A known receiver is still found (and its wrong hash refused as such).
      expectRefusal(
        await v2Client(
          'java',
          { receiver_id: account.receiver_id, secret: other.secret },
          { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' },
        ).request('GET', '/banks'),
        403,
      );
      expect((await php.request('GET', '/banks')).status).toBe(200);
    } finally {
      lookups.mockRestore();
    }
  });

  it('answers 403 to a signature made with another secret', async () => {
    const wrong = v2Client(
      'java',
      { receiver_id: account.receiver_id, secret: other.secret },
      { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' },
    );
    const before = await countRows(server.ctx.db, 'payments');
    expectRefusal(await wrong.request('POST', '/payments', { form }), 403, /signature/);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });

  it('accepts the API key and answers 401 to an unknown one', async () => {
    expect((await client(server.baseUrl, account.api_key).get('/2.0/banks')).status).toBe(200);
    expectRefusal(await client(server.baseUrl, '00000000-0000-4000-8000-000000000000').get('/2.0/banks'), 401);
    expectRefusal(await call(server.baseUrl, 'GET', '/2.0/banks', { headers: { authorization: 'Bearer not-a-token' } }), 401);
  });

  it('accepts a bearer token, and answers 400 when it comes with an API key, even of the same account', async () => {
    const token = await clientCredentialsToken(server, account);
    expect((await call(server.baseUrl, 'GET', '/2.0/banks', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const before = await countRows(server.ctx.db, 'payments');
    for (const path of ['/2.0/payments', '/api/2.0/payments']) {
      const res = await call(server.baseUrl, 'POST', path, {
        apiKey: account.api_key,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        rawBody: new URLSearchParams(form).toString(),
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 400, message: expect.any(String), errors: [{ field: 'x-api-key', message: expect.stringContaining('never both') }] });
    }
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });

  it('answers 401 to a bearer token that is tampered with, revoked or of another issuer', async () => {
    const token = await clientCredentialsToken(server, account);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const otherAccount = Buffer.from(JSON.stringify({ ...claims, sub: String(other.receiver_id), client_id: String(other.receiver_id) })).toString('base64url');
    const otherIssuer = Buffer.from(JSON.stringify({ ...claims, iss: 'https://elsewhere.example' })).toString('base64url');
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [
      `${header}.${otherAccount}.${signature}`,
      `${header}.${otherIssuer}.${signature}`,
      `${header}.${payload}.${flipped}`,
      `${header}.${payload}.`,
    ]) {
      expectRefusal(await call(server.baseUrl, 'GET', '/2.0/banks', { headers: { authorization: `Bearer ${bad}` } }), 401);
    }
    expect((await formPost(server.baseUrl, '/oauth2/revoke', { token }, basicAuth(account))).status).toBe(200);
    expectRefusal(await call(server.baseUrl, 'GET', '/api/2.0/banks', { headers: { authorization: `Bearer ${token}` } }), 401);
  });

  it('accepts an API key together with a signature of the same account', async () => {
    const prepared = php.prepare('GET', '/banks');
    const res = await php.send({ ...prepared, headers: { ...prepared.headers, 'x-api-key': account.api_key } });
    expect(res.status).toBe(200);
  });

  it('refuses an API key together with a signature of another account, or with a bad signature', async () => {
    const prepared = php.prepare('GET', '/banks');
    expectRefusal(await php.send({ ...prepared, headers: { ...prepared.headers, 'x-api-key': other.api_key } }), 403, /different accounts/);
    // A signature of a receiver that does not exist is answered the same way.
    const unknownSigner = { ...prepared.headers, authorization: `3:${prepared.headers.authorization!.split(':')[1]}`, 'x-api-key': account.api_key };
    expectRefusal(await php.send({ ...prepared, headers: unknownSigner }), 403, /different accounts/);
    const badHash = { ...prepared.headers, authorization: `${account.receiver_id}:${'0'.repeat(64)}`, 'x-api-key': account.api_key };
    expectRefusal(await php.send({ ...prepared, headers: badHash }), 403, /signature/);
    expectRefusal(await php.send({ ...prepared, headers: { ...prepared.headers, 'x-api-key': '00000000-0000-4000-8000-000000000000' } }), 401);
  });
});

describe('what the signature covers', () => {
  it('is checked before the body is validated, and a refused create writes nothing', async () => {
    const before = await countRows(server.ctx.db, 'payments');
    const prepared = php.prepare('POST', '/payments', { form: { currency: 'CLF', amount: 'abc' } });
    const tampered = { ...prepared, headers: { ...prepared.headers, authorization: `${account.receiver_id}:${'a'.repeat(64)}` } };
    expectRefusal(await php.send(tampered), 403);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });

  it('refuses a tampered, an added and a removed form parameter', async () => {
    const before = await countRows(server.ctx.db, 'payments');
    const prepared = php.prepare('POST', '/payments', { form });
    expect(prepared.body).toContain('amount=1000');
    for (const body of [prepared.body!.replace('amount=1000', 'amount=1'), `${prepared.body}&transaction_id=x`, prepared.body!.replace('&currency=CLP', '')]) {
      expectRefusal(await php.send({ ...prepared, body }), 403, /signature/);
    }
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });

  it('refuses a tampered or an added query parameter', async () => {
    const created = await php.request('POST', '/payments', { form });
    const paid = await payByTransfer(server.ctx, account.merchant, created.body.payment_id);
    const prepared = php.prepare('GET', '/payments', { query: { notification_token: paid.notificationToken } });
    expect((await php.send(prepared)).status).toBe(200);
    const otherToken = `${paid.notificationToken.slice(0, -1)}${paid.notificationToken.endsWith('0') ? '1' : '0'}`;
    expectRefusal(await php.send({ ...prepared, path: prepared.path.replace(paid.notificationToken, otherToken) }), 403);
    expectRefusal(await php.send({ ...prepared, path: `${prepared.path}&extra=1` }), 403);
  });

  it('accepts the same parameters reordered or encoded differently', async () => {
    const signed: [string, string][] = [
      ['subject', 'Año nuevo ~ 50% *off*'],
      ['currency', 'CLP'],
      ['amount', '1000'],
    ];
    const bodies = [
      'subject=A%C3%B1o%20nuevo%20~%2050%25%20%2Aoff%2A&currency=CLP&amount=1000',
      'amount=1000&currency=CLP&subject=A%C3%B1o+nuevo+%7E+50%25+*off*',
      'currency=%43%4C%50&amount=%31000&subject=A%c3%b1o%20nuevo%20%7e%2050%25%20%2aoff%2a',
    ];
    for (const body of bodies) {
      const res = await sendRawForm(body, signed);
      expect(res.status, body).toBe(200);
      const got = await php.request('GET', `/payments/${res.body.payment_id}`);
      expect(got.body.subject).toBe('Año nuevo ~ 50% *off*');
    }
  });

  it('refuses a parameter that decodes to something else than what was signed', async () => {
    // A literal + in a form is a space: a client that signed "a+b" must have sent a%2Bb.
    const res = await sendRawForm('subject=a+b&currency=CLP&amount=1000', [
      ['subject', 'a+b'],
      ['currency', 'CLP'],
      ['amount', '1000'],
    ]);
    expectRefusal(res, 403);
  });
});

describe('the URL the signature is bound to', () => {
  it('refuses a request signed for another host', async () => {
    const elsewhere = v2Client('ruby', account, { networkUrl: server.baseUrl, signedBase: 'https://khipu.com/api/2.0', prefix: '/api/2.0' });
    expectRefusal(await elsewhere.request('GET', '/banks'), 403, new RegExp(`GET ${server.config.publicBaseUrl}/api/2.0/banks`.replace(/[.]/g, '\\.')));
  });

  it('refuses a signed request replayed to another path', async () => {
    const first = await php.request('POST', '/payments', { form });
    const second = await php.request('POST', '/payments', { form });
    const read = php.prepare('GET', `/payments/${first.body.payment_id}`);
    expect((await php.send(read)).status).toBe(200);
    expectRefusal(await php.send({ ...read, path: read.path.replace(first.body.payment_id, second.body.payment_id) }), 403);
    // The same path under the other prefix is another URL.
    expectRefusal(await php.send({ ...read, path: read.path.replace('/api/2.0/', '/2.0/') }), 403);
    // A delete replayed as a confirm, and a create replayed as a receiver.
    const del = php.prepare('DELETE', `/payments/${second.body.payment_id}`);
    expectRefusal(await php.send({ ...del, method: 'POST', path: `${del.path}/confirm` }), 403);
    const before = await countRows(server.ctx.db, 'merchants');
    const create = php.prepare('POST', '/payments', { form });
    expectRefusal(await php.send({ ...create, path: '/api/2.0/receivers' }), 403);
    expect(await countRows(server.ctx.db, 'merchants')).toBe(before);
    // Still there: nothing was deleted.
    expect((await php.request('GET', `/payments/${second.body.payment_id}`)).body.status).toBe('pending');
  });

  it('refuses a signed GET replayed as a DELETE of the same path (and the other way round), deleting nothing', async () => {
    const created = await php.request('POST', '/payments', { form });
    const path = `/payments/${created.body.payment_id}`;
    for (const name of ['php', 'java'] as const) {
      const signer = v2Client(name, account, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/api/2.0`, prefix: '/api/2.0' });
      const read = signer.prepare('GET', path);
      expect((await signer.send(read)).status).toBe(200);
      expectRefusal(await signer.send({ ...read, method: 'DELETE' }), 403, /signature/);
      expectRefusal(await signer.send({ ...signer.prepare('DELETE', path), method: 'GET', body: undefined }), 403, /signature/);
    }
    expect((await php.request('GET', path)).body.status).toBe('pending');
  });

  it('is the public base URL, whatever address the server is reached at', async () => {
    const proxied = await startTestServer({ PUBLIC_BASE_URL: 'https://pay.example.com' });
    try {
      const acct = await proxied.account();
      const asClientSees = v2Client('java', acct, { networkUrl: proxied.baseUrl, signedBase: 'https://pay.example.com/api/2.0', prefix: '/api/2.0' });
      expect((await asClientSees.request('GET', '/banks')).status).toBe(200);
      const asServerListens = v2Client('java', acct, { networkUrl: proxied.baseUrl, signedBase: `${proxied.baseUrl}/api/2.0`, prefix: '/api/2.0' });
      expectRefusal(await asServerListens.request('GET', '/banks'), 403, /https:\/\/pay\.example\.com\/api\/2\.0\/banks/);
    } finally {
      await proxied.close();
    }
  });
});

describe('the spelling of the public base URL', () => {
  let shop: TestServer;
  let merchant: TestAccount;
  beforeAll(async () => {
    shop = await startTestServer({ PUBLIC_BASE_URL: 'https://PAY.Example.com:443/shop/' });
    merchant = await shop.account();
  });
  afterAll(async () => shop?.close());

  const signedAs = (signedBase: string) => v2Client('java', merchant, { networkUrl: shop.baseUrl, signedBase, prefix: '/api/2.0' });

  /** Sends a prepared request with the Host header a client configured with that host sends (fetch cannot set it). */
  async function sendWithHost(prepared: Prepared, host: string) {
    const res = await request(`${shop.baseUrl}${prepared.path}`, { method: prepared.method as Dispatcher.HttpMethod, headers: { ...prepared.headers, host } });
    return { status: res.statusCode, body: (await res.body.json()) as any };
  }

  it('is kept as origin and path: host in lower case, no default port, no trailing slash', async () => {
    expect(shop.config.publicBaseUrl).toBe('https://pay.example.com/shop');
    const created = await signedAs('https://pay.example.com/shop/api/2.0').request('POST', '/payments', {
      form: { subject: 'Spelling', currency: 'CLP', amount: 1000 },
    });
    expect(created.status).toBe(200);
    expect(created.body.payment_url).toMatch(/^https:\/\/pay\.example\.com\/shop\/payment\//);
  });

  it('verifies a client that writes the default port, or the host in the letter case its Host header carries', async () => {
    expect((await signedAs('https://pay.example.com:443/shop/api/2.0').request('GET', '/banks')).status).toBe(200);
    for (const signedBase of ['https://PAY.Example.com/shop/api/2.0', 'https://PAY.Example.com:443/shop/api/2.0']) {
      expect((await sendWithHost(signedAs(signedBase).prepare('GET', '/banks'), 'PAY.Example.com')).status, signedBase).toBe(200);
    }
  });

  it('refuses another scheme, host, port or path, and a host case the Host header does not show', async () => {
    const cases: [signedBase: string, host: string][] = [
      // A proxy that rewrote Host in lower case: which case the client signed cannot be known.
      ['https://PAY.Example.com/shop/api/2.0', 'pay.example.com'],
      ['https://pay.example.org/shop/api/2.0', 'pay.example.org'],
      ['https://pay.example.com:8443/shop/api/2.0', 'pay.example.com:8443'],
      ['http://pay.example.com/shop/api/2.0', 'pay.example.com'],
      ['https://pay.example.com/SHOP/api/2.0', 'pay.example.com'],
    ];
    for (const [signedBase, host] of cases) {
      const res = await sendWithHost(signedAs(signedBase).prepare('GET', '/banks'), host);
      expect(res.status, signedBase).toBe(403);
      expect(res.body.message).toContain('GET https://pay.example.com/shop/api/2.0/banks');
    }
  });
});

describe('a signed JSON body', () => {
  it('is signed as the clients sign JSON: the raw text appended', async () => {
    const created = await php.request('POST', '/payments', { form });
    await payByTransfer(server.ctx, account.merchant, created.body.payment_id);
    const path = `/2.0/payments/${created.body.payment_id}/refunds`;
    const json = '{"amount":100}';
    const url = `${server.config.publicBaseUrl}${path}`;
    const hash = signWith(CLIENTS.ruby, account.secret, 'POST', url, []);
    const withBody = createHmac('sha256', account.secret)
      .update(`POST&${CLIENTS.ruby.signEncode(url)}&${json}`)
      .digest('hex');
    const headers = (h: string) => ({ authorization: `${account.receiver_id}:${h}`, 'content-type': 'application/json' });
    // Signed without the body: refused, and nothing refunded.
    expectRefusal(await call(server.baseUrl, 'POST', path, { headers: headers(hash), rawBody: json }), 403);
    expectRefusal(await call(server.baseUrl, 'POST', path, { headers: headers(withBody), rawBody: '{"amount":900}' }), 403);
    expect(await countRows(server.ctx.db, 'refunds')).toBe(0);
    const res = await call(server.baseUrl, 'POST', path, { headers: headers(withBody), rawBody: json });
    expect(res.status).toBe(200);
    expect(await countRows(server.ctx.db, 'refunds')).toBe(1);
  });
});

describe('a signed query string encoded differently', () => {
  it('verifies, since the parameters are signed decoded', async () => {
    const created = await php.request('POST', '/payments', { form });
    const paid = await payByTransfer(server.ctx, account.merchant, created.body.payment_id);
    const prepared = php.prepare('GET', '/payments', { query: { notification_token: paid.notificationToken } });
    const token = paid.notificationToken;
    // The key's underscore and the token's first characters needlessly percent-encoded.
    const encodedHead = [...token.slice(0, 4)].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
    const path = `${prepared.path.split('?')[0]}?notification%5Ftoken=${encodedHead}${token.slice(4)}`;
    expect(path).not.toContain('notification_token');
    const res = await php.send({ ...prepared, path });
    expect(res.status).toBe(200);
    expect(res.body.payment_id).toBe(created.body.payment_id);
  });
});
