// The v2 payment and receiver operations beyond the happy path: every v2 field rule answered with
// a 400 naming the field and writing nothing, bodies that are not forms, the v2 error statuses
// (403 refused, 404 unknown, 503 not possible in this state) and the serialisations accepted.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, client } from '../helpers/http.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { type TestAccount, useTestServer } from '../helpers/server.js';
import { CLIENTS, type Params, signWith, type V2Client, v2Client } from '../helpers/v2-clients.js';

let plain: TestAccount;
let php: V2Client;
let java: V2Client;

const clientOf = (name: 'php' | 'java', acct: TestAccount) =>
  v2Client(name, acct, { networkUrl: setup.server.baseUrl, signedBase: `${setup.server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });

const setup = useTestServer({}, { features: { confirm: true, refunds: true, integrator: true } });
beforeAll(async () => {
  plain = await setup.server.account();
  php = clientOf('php', setup.account);
  java = clientOf('java', setup.account);
});

const valid = { subject: 'Order 42', currency: 'CLP', amount: '1000' };
const receiver = {
  admin_first_name: 'Ana',
  admin_last_name: 'Pérez',
  admin_email: 'ana@tienda.example',
  country_code: 'CL',
  business_identifier: '76123456-7',
  business_category: 'Comercio',
  business_name: 'Tienda',
  business_phone: '+56223456789',
  business_address_line_1: 'Calle 1',
  business_address_line_2: 'Depto 2',
  business_address_line_3: 'Santiago',
  contact_full_name: 'Ana Pérez',
  contact_job_title: 'Gerente',
  contact_email: 'contacto@tienda.example',
  contact_phone: '+56987654321',
};

function expectFields(res: { status: number; body: any }, fields: string[]) {
  expect(res.status).toBe(400);
  expect(res.body.status).toBe(400);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([...fields].sort());
  for (const e of res.body.errors) expect(typeof e.message).toBe('string');
}

describe('POST /2.0/payments field rules', () => {
  const cases: [string, Params, string[]][] = [
    ['CLF, which v2 does not offer', { ...valid, currency: 'CLF' }, ['currency']],
    ['an unknown currency', { ...valid, currency: 'XYZ' }, ['currency']],
    ['no currency', { subject: 's', amount: '1000' }, ['currency']],
    ['no amount', { subject: 's', currency: 'CLP' }, ['amount']],
    ['no subject, amount nor currency', { body: 'x' }, ['subject', 'amount', 'currency']],
    ['an amount that is not a number', { ...valid, amount: 'mil' }, ['amount']],
    ['an amount with a thousands separator', { ...valid, amount: '1,000' }, ['amount']],
    ['decimals in CLP', { ...valid, amount: '1000.5' }, ['amount']],
    ['three decimals in USD', { ...valid, currency: 'USD', amount: '10.125' }, ['amount']],
    ['a zero amount', { ...valid, amount: '0' }, ['amount']],
    ["Java's notation for an amount past the limit", { ...valid, amount: '1.0E+11' }, ['amount']],
    ["Java's notation for decimals CLP does not have", { ...valid, amount: '1.23456785E7' }, ['amount']],
    ['an amount text over 1024 characters', { ...valid, amount: `1000.${'0'.repeat(1020)}` }, ['amount']],
    ['a boolean that is none of the spellings', { ...valid, send_email: 'yes' }, ['send_email']],
    ['an upper-case boolean', { ...valid, send_reminders: 'TRUE' }, ['send_reminders']],
    ['send_email without the payer', { ...valid, send_email: 'true' }, ['payer_name', 'payer_email']],
    ['a date without a zone', { ...valid, expires_date: '2030-01-01T10:00:00' }, ['expires_date']],
    ['a date that is not one', { ...valid, expires_date: 'mañana' }, ['expires_date']],
    ['a subject over 255', { ...valid, subject: 'x'.repeat(256) }, ['subject']],
    ['a bank_id over 5', { ...valid, bank_id: 'ABCDEF' }, ['bank_id']],
    ['a notify_api_version not offered', { ...valid, notify_api_version: '2.0' }, ['notify_api_version']],
    ['a notify_url that is not http', { ...valid, notify_url: 'ftp://tienda.example/n' }, ['notify_url']],
    ['schema and account rules together', { ...valid, subject: 'x'.repeat(256), send_email: 'true' }, ['subject', 'payer_name', 'payer_email']],
  ];

  it.each(cases)('refuses %s, naming the field and writing nothing', async (_name, form, fields) => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    expectFields(await php.request('POST', '/payments', { form }), fields);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
  });

  it('refuses a field given twice, naming it', async () => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    // Signed as sent, so it is the body that is refused, not the signature.
    const res = await sendSignedBody('subject=Order+42&currency=CLP&amount=1000&subject=Other', [...Object.entries(valid), ['subject', 'Other']]);
    expectFields(res, ['subject']);
    expect(res.body.errors[0].message).toMatch(/once/);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
  });

  it('reads empty fields as absent, as the libraries send unset ones', async () => {
    const res = await php.request('POST', '/payments', { form: { ...valid, body: '', bank_id: '', send_email: '', expires_date: '' } });
    expect(res.status).toBe(200);
    const got = await php.request('GET', `/payments/${res.body.payment_id}`);
    expect(got.body).toMatchObject({ body: '', bank_id: '', send_email: false });
  });

  it.each([
    ['true', true],
    ['1', true],
    ['True', true],
    ['false', false],
    ['0', false],
    ['False', false],
  ])('reads the boolean %s as %s', async (text, value) => {
    const res = await php.request('POST', '/payments', { form: { ...valid, send_email: text, payer_name: 'P', payer_email: 'p@payer.example' } });
    expect(res.status).toBe(200);
    expect((await php.request('GET', `/payments/${res.body.payment_id}`)).body.send_email).toBe(value);
  });

  it.each([
    ['2031-03-01T13:00:00+0000', '2031-03-01T13:00:00.000Z'],
    ['2031-03-01T13:00:00.000Z', '2031-03-01T13:00:00.000Z'],
    ['2031-03-01 13:00:00 -0300', '2031-03-01T16:00:00.000Z'],
    ['2031-03-01T10:00:00.000-03:00', '2031-03-01T13:00:00.000Z'],
  ])('reads the date %s', async (text, iso) => {
    const res = await php.request('POST', '/payments', { form: { ...valid, expires_date: text } });
    expect(res.status).toBe(200);
    expect((await php.request('GET', `/payments/${res.body.payment_id}`)).body.expires_date).toBe(iso);
  });

  it.each([
    ['1000', 'CLP', 1000],
    ['1000.0', 'CLP', 1000],
    ['100.50', 'USD', 100.5],
    ['0012.3', 'EUR', 12.3],
    // Java's Double.toString and BigDecimal notations, from 10^7 up.
    ['1.0E7', 'CLP', 10_000_000],
    ['1.0E+7', 'CLP', 10_000_000],
    ['1.23456785E7', 'USD', 12_345_678.5],
    ['9.87654321E+10', 'CLP', 98_765_432_100],
    // Any length up to the 1024 characters an amount's text is read to.
    [`1000.${'0'.repeat(1019)}`, 'CLP', 1000],
  ])('reads the amount %s %s', async (amount, currency, value) => {
    const res = await php.request('POST', '/payments', { form: { ...valid, amount, currency } });
    expect(res.status).toBe(200);
    expect((await php.request('GET', `/payments/${res.body.payment_id}`)).body.amount).toBe(value);
  });
});

/** A form body sent exactly as written and signed over the given pairs. */
function sendSignedBody(body: string, pairs: [string, string][]) {
  const hash = signWith(CLIENTS.php, setup.account.secret, 'POST', `${setup.server.config.publicBaseUrl}/2.0/payments`, pairs);
  return call(setup.server.baseUrl, 'POST', '/2.0/payments', {
    headers: { authorization: `${setup.account.receiver_id}:${hash}`, 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: body,
  });
}

describe('bodies that are not forms', () => {
  it('answers JSON sent to create a payment with a 400 naming the body, and writes nothing', async () => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const res = await client(setup.server.baseUrl, setup.account.api_key).post('/2.0/payments', { subject: 'Order', currency: 'CLP', amount: 1000 });
    expectFields(res, ['body']);
    expect(res.body.message).toMatch(/x-www-form-urlencoded/);
    expect(res.body.errors[0].message).toMatch(/not application\/json/);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
  });

  it('answers JSON sent to create a receiver with a 400 naming the body', async () => {
    const before = await countRows(setup.server.ctx.db, 'merchants');
    expectFields(await client(setup.server.baseUrl, setup.account.api_key).post('/api/2.0/receivers', { admin_first_name: 'A' }), ['body']);
    expect(await countRows(setup.server.ctx.db, 'merchants')).toBe(before);
  });

  it('answers a create with no body at all with a 400 naming the body', async () => {
    expectFields(await call(setup.server.baseUrl, 'POST', '/2.0/payments', { apiKey: setup.account.api_key }), ['body']);
  });

  it('answers plain text and multipart with 415', async () => {
    for (const contentType of ['text/plain', 'multipart/form-data; boundary=x']) {
      const res = await call(setup.server.baseUrl, 'POST', '/2.0/payments', {
        apiKey: setup.account.api_key,
        headers: { 'content-type': contentType },
        rawBody: 'subject=x',
      });
      expect(res.status, contentType).toBe(415);
      expect(res.body.status).toBe(415);
    }
  });
});

describe('reading', () => {
  it("answers 404 to an unknown id, an unknown token and another account's payment", async () => {
    const theirs = await clientOf('php', plain).request('POST', '/payments', { form: valid });
    expect(theirs.status).toBe(200);
    for (const res of [
      await php.request('GET', '/payments/zzzzzzzzzzzz'),
      await php.request('GET', `/payments/${theirs.body.payment_id}`),
      await php.request('DELETE', `/payments/${theirs.body.payment_id}`),
      await php.request('GET', '/payments', { query: { notification_token: 'f'.repeat(64) } }),
    ]) {
      expect(res.status).toBe(404);
      expect(Object.keys(res.body).sort()).toEqual(['message', 'status']);
    }
    expect((await clientOf('php', plain).request('GET', `/payments/${theirs.body.payment_id}`)).body.status).toBe('pending');
  });

  it("answers 404 to another account's real notification token, and shows nothing of its payment", async () => {
    const theirs = await clientOf('php', plain).request('POST', '/payments', { form: { ...valid, subject: 'Their secret order' } });
    const paid = await payByTransfer(setup.server.ctx, plain.merchant, theirs.body.payment_id);
    expect((await clientOf('php', plain).request('GET', '/payments', { query: { notification_token: paid.notificationToken } })).status).toBe(200);
    for (const asked of [php, java]) {
      const res = await asked.request('GET', '/payments', { query: { notification_token: paid.notificationToken } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 404, message: expect.any(String) });
      for (const secret of [theirs.body.payment_id, 'Their secret order', String(plain.receiver_id)]) expect(res.body.message).not.toContain(secret);
    }
    // The same as a token that does not exist.
    const unknown = await php.request('GET', '/payments', { query: { notification_token: 'e'.repeat(64) } });
    expect(unknown.body.message).toBe((await php.request('GET', '/payments', { query: { notification_token: paid.notificationToken } })).body.message);
  });

  it('answers 400 naming notification_token when the lookup has none', async () => {
    expectFields(await php.request('GET', '/payments'), ['notification_token']);
  });

  it("answers 404 to another account's payment methods, but not to an integrator's receiver's", async () => {
    expect((await php.request('GET', `/merchants/${plain.receiver_id}/paymentMethods`)).status).toBe(404);
    const child = await setup.server.account({ parentReceiverId: setup.account.receiver_id });
    expect((await php.request('GET', `/merchants/${child.receiver_id}/paymentMethods`)).status).toBe(200);
    expectFields(await php.request('GET', '/merchants/abc/paymentMethods'), ['id']);
  });
});

describe('operations the payment or the account does not allow', () => {
  function expectServiceError(res: { status: number; body: any }) {
    expect(res.status).toBe(503);
    expect(Object.keys(res.body).sort()).toEqual(['message', 'status']);
    expect(res.body.status).toBe(503);
  }

  it('answers 503 to deleting, and 503 to confirming or refunding in the wrong state', async () => {
    const pending = await php.request('POST', '/payments', { form: valid });
    expectServiceError(await php.request('POST', `/payments/${pending.body.payment_id}/confirm`));
    expectServiceError(await php.request('POST', `/payments/${pending.body.payment_id}/refunds`));
    await payByTransfer(setup.server.ctx, setup.account.merchant, pending.body.payment_id);
    expectServiceError(await php.request('DELETE', `/payments/${pending.body.payment_id}`));
    expect((await php.request('POST', `/payments/${pending.body.payment_id}/refunds`)).status).toBe(200);
    // Refunded in full: a second refund is not possible any more.
    expectServiceError(await php.request('POST', `/payments/${pending.body.payment_id}/refunds`, { form: { amount: '1' } }));
    expect((await php.request('GET', `/payments/${pending.body.payment_id}`)).body.status_detail).toBe('reversed');
  });

  it('ignores a field sent to confirm or delete, naming it, as v3 does', async () => {
    const paid = await php.request('POST', '/payments', { form: valid });
    await payByTransfer(setup.server.ctx, setup.account.merchant, paid.body.payment_id);
    const confirmed = await php.request('POST', `/payments/${paid.body.payment_id}/confirm`, { form: { foo: 'bar' } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.headers.get('quipu-ignored-fields')).toBe('foo');
    const pending = await java.request('POST', '/payments', { form: valid });
    const deleted = await java.request('DELETE', `/payments/${pending.body.payment_id}`, { form: { foo: 'bar', force: 'true' } });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.headers.get('quipu-ignored-fields')).toBe('foo, force');
    const other = await php.request('POST', '/payments', { form: valid });
    await payByTransfer(setup.server.ctx, setup.account.merchant, other.body.payment_id);
    const json = await client(setup.server.baseUrl, setup.account.api_key).post(`/2.0/payments/${other.body.payment_id}/confirm`, { notify: true });
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(json.headers.get('quipu-ignored-fields')).toBe('notify');
  });

  it('answers 400 naming amount to a refund above what remains, and refunds nothing', async () => {
    const created = await php.request('POST', '/payments', { form: valid });
    await payByTransfer(setup.server.ctx, setup.account.merchant, created.body.payment_id);
    const before = await countRows(setup.server.ctx.db, 'refunds');
    expectFields(await php.request('POST', `/payments/${created.body.payment_id}/refunds`, { form: { amount: '1001' } }), ['amount']);
    expectFields(await php.request('POST', `/payments/${created.body.payment_id}/refunds`, { form: { amount: 'all' } }), ['amount']);
    expect(await countRows(setup.server.ctx.db, 'refunds')).toBe(before);
  });

  it("reads a refund amount's text up to 1024 characters, and refuses longer text naming amount", async () => {
    const created = await php.request('POST', '/payments', { form: valid });
    await payByTransfer(setup.server.ctx, setup.account.merchant, created.body.payment_id);
    const before = await countRows(setup.server.ctx.db, 'refunds');
    expectFields(await php.request('POST', `/payments/${created.body.payment_id}/refunds`, { form: { amount: `1.${'0'.repeat(1023)}` } }), ['amount']);
    expect(await countRows(setup.server.ctx.db, 'refunds')).toBe(before);
    expect((await php.request('POST', `/payments/${created.body.payment_id}/refunds`, { form: { amount: `1.${'0'.repeat(1022)}` } })).status).toBe(200);
    expect(await countRows(setup.server.ctx.db, 'refunds')).toBe(before + 1);
  });

  it('refunds from a JSON body as the contract describes it', async () => {
    const created = await php.request('POST', '/payments', { form: valid });
    await payByTransfer(setup.server.ctx, setup.account.merchant, created.body.payment_id);
    const api = client(setup.server.baseUrl, setup.account.api_key);
    expect((await api.post(`/2.0/payments/${created.body.payment_id}/refunds`, { amount: 250 })).status).toBe(200);
    expect((await api.post(`/2.0/payments/${created.body.payment_id}/refunds`, { amount: '250' })).status).toBe(200);
    const res = await api.post(`/2.0/payments/${created.body.payment_id}/refunds`);
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/500 CLP/);
  });

  it('answers 403 to operations the account has not contracted, and changes nothing', async () => {
    const v2 = clientOf('java', plain);
    const created = await v2.request('POST', '/payments', { form: valid });
    await payByTransfer(setup.server.ctx, plain.merchant, created.body.payment_id);
    for (const res of [
      await v2.request('POST', `/payments/${created.body.payment_id}/confirm`),
      await v2.request('POST', `/payments/${created.body.payment_id}/refunds`),
    ]) {
      expect(res.status).toBe(403);
      expect(Object.keys(res.body).sort()).toEqual(['message', 'status']);
    }
    const before = await countRows(setup.server.ctx.db, 'merchants');
    expect((await v2.request('POST', '/receivers', { form: receiver })).status).toBe(403);
    expect(await countRows(setup.server.ctx.db, 'merchants')).toBe(before);
    expect((await v2.request('GET', `/payments/${created.body.payment_id}`)).body).toMatchObject({ status: 'done', status_detail: 'normal' });
  });
});

describe('POST /2.0/receivers field rules', () => {
  const { admin_email: _dropped, ...withoutEmail } = receiver;

  it.each([
    ['a missing admin_email', withoutEmail, ['admin_email']],
    ['an unknown country', { ...receiver, country_code: 'XX' }, ['country_code']],
    ['a short business_identifier', { ...receiver, business_identifier: '1234' }, ['business_identifier']],
  ] as [string, Params, string[]][])('refuses %s, naming the field and opening nothing', async (_name, form, fields) => {
    const before = await countRows(setup.server.ctx.db, 'merchants');
    expectFields(await java.request('POST', '/receivers', { form }), fields);
    expect(await countRows(setup.server.ctx.db, 'merchants')).toBe(before);
  });
});

describe('Idempotency-Key', () => {
  it('replays a signed create sent twice with the same key, and refuses the key with another body', async () => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const prepared = php.prepare('POST', '/payments', { form: valid });
    const withKey = { ...prepared, headers: { ...prepared.headers, 'idempotency-key': 'order-42' } };
    const first = await php.send(withKey);
    const again = await php.send(withKey);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = php.prepare('POST', '/payments', { form: { ...valid, amount: '2000' } });
    const reused = await php.send({ ...other, headers: { ...other.headers, 'idempotency-key': 'order-42' } });
    expect(reused.status).toBe(422);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before + 1);
  });
});

describe('the OpenAPI document', () => {
  it('describes the v2 operations once, under /2.0', async () => {
    const doc = await call(setup.server.baseUrl, 'GET', '/openapi.json');
    const paths = Object.keys(doc.body.paths);
    expect(paths).toEqual(expect.arrayContaining(['/2.0/payments', '/2.0/payments/{id}', '/2.0/payments/{id}/refunds', '/2.0/receivers', '/2.0/banks']));
    expect(paths.filter((p) => p.startsWith('/api/2.0'))).toEqual([]);
    expect(paths).not.toContain('/2.0/predict');
    expect(doc.body.components.securitySchemes['V2-Signature']).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.body.paths['/2.0/payments'].post.security).toEqual([{ 'Api-Key': [] }, { 'V2-Signature': [] }, { Bearer: [] }]);
  });

  it('declares the content types each v2 operation takes, and every error it answers in the shared Error shape', async () => {
    const doc = (await call(setup.server.baseUrl, 'GET', '/openapi.json')).body;
    const FORM = 'application/x-www-form-urlencoded';
    const JSON_TYPE = 'application/json';
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>)
      .filter(([path]) => path.startsWith('/2.0/'))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));
    const byName = Object.fromEntries(operations.map(({ name, op }) => [name, op]));
    expect(Object.keys(byName).sort()).toEqual([
      'DELETE /2.0/payments/{id}',
      'GET /2.0/banks',
      'GET /2.0/merchants/{id}/paymentMethods',
      'GET /2.0/payments',
      'GET /2.0/payments/{id}',
      'POST /2.0/payments',
      'POST /2.0/payments/{id}/confirm',
      'POST /2.0/payments/{id}/refunds',
      'POST /2.0/receivers',
    ]);

    // Create and receivers take only a form (JSON is refused with a 400); the others a form or JSON, and no body at all.
    const takes = (name: string) => Object.keys(byName[name].requestBody?.content ?? {});
    for (const name of ['POST /2.0/payments', 'POST /2.0/receivers']) {
      expect(takes(name), name).toEqual([FORM]);
      expect(byName[name].requestBody.required, name).toBe(true);
    }
    expect(byName['POST /2.0/payments'].requestBody.content[FORM].schema.properties.amount.type).toBe('string');
    for (const name of ['POST /2.0/payments/{id}/refunds', 'POST /2.0/payments/{id}/confirm', 'DELETE /2.0/payments/{id}']) {
      expect(takes(name), name).toEqual([FORM, JSON_TYPE]);
      expect(byName[name].requestBody.required, name).toBe(false);
    }
    for (const name of ['GET /2.0/banks', 'GET /2.0/payments', 'GET /2.0/payments/{id}', 'GET /2.0/merchants/{id}/paymentMethods'])
      expect(byName[name].requestBody, name).toBeUndefined();

    // Every error in the one Error schema v3 uses; 400, 401, 403 and 503 everywhere and never a 500.
    const errorRef: string = doc.paths['/v3/banks'].get.responses['400'].content[JSON_TYPE].schema.$ref;
    expect(Object.keys(doc.components.schemas[errorRef.replace('#/components/schemas/', '')].properties).sort()).toEqual(['errors', 'message', 'status']);
    const declared = (name: string) => Object.keys(byName[name].responses).filter((status) => status !== '200');
    for (const { name, op } of operations) {
      for (const status of declared(name)) expect(op.responses[status].content[JSON_TYPE].schema.$ref, `${name} ${status}`).toBe(errorRef);
      expect(declared(name), name).toEqual(expect.arrayContaining(['400', '401', '403', '503']));
      expect(declared(name), name).not.toContain('500');
    }
    const withStatus = (status: string) =>
      operations
        .filter(({ op }) => op.responses[status])
        .map(({ name }) => name)
        .sort();
    expect(withStatus('404')).toEqual([
      'DELETE /2.0/payments/{id}',
      'GET /2.0/merchants/{id}/paymentMethods',
      'GET /2.0/payments',
      'GET /2.0/payments/{id}',
      'POST /2.0/payments/{id}/confirm',
      'POST /2.0/payments/{id}/refunds',
    ]);
    expect(withStatus('409')).toEqual(['POST /2.0/payments', 'POST /2.0/payments/{id}/confirm', 'POST /2.0/payments/{id}/refunds', 'POST /2.0/receivers']);
    expect(withStatus('422')).toEqual(withStatus('409'));
    expect(withStatus('415')).toEqual([
      'DELETE /2.0/payments/{id}',
      'POST /2.0/payments',
      'POST /2.0/payments/{id}/confirm',
      'POST /2.0/payments/{id}/refunds',
      'POST /2.0/receivers',
    ]);
    expect(withStatus('413')).toEqual(withStatus('415'));
  });

  it('describes /api/2.0 by the same declarations: its errors come in the same shape as under /2.0', async () => {
    for (const prefix of ['/2.0', '/api/2.0']) {
      const api = client(setup.server.baseUrl, setup.account.api_key);
      expect((await api.get(`${prefix}/payments/zzzzzzzzzzzz`)).body, prefix).toEqual({ status: 404, message: expect.any(String) });
      expect((await call(setup.server.baseUrl, 'GET', `${prefix}/banks`)).body, prefix).toEqual({ status: 401, message: expect.any(String) });
      expect((await api.post(`${prefix}/payments`, valid)).body, prefix).toEqual({
        status: 400,
        message: expect.any(String),
        errors: [{ field: 'body', message: expect.any(String) }],
      });
      const text = await call(setup.server.baseUrl, 'POST', `${prefix}/payments`, {
        apiKey: setup.account.api_key,
        headers: { 'content-type': 'text/plain' },
        rawBody: 'x',
      });
      expect(text.body, prefix).toEqual({ status: 415, message: expect.any(String) });
      const forged = v2Client(
        'php',
        { receiver_id: setup.account.receiver_id, secret: plain.secret },
        { networkUrl: setup.server.baseUrl, signedBase: `${setup.server.config.publicBaseUrl}${prefix}`, prefix },
      );
      expect((await forged.request('GET', '/banks')).body, prefix).toEqual({ status: 403, message: expect.stringContaining('signature') });
    }
  });
});

describe('form-only operations, signed', () => {
  /** A JSON body signed over its fields the way a form is signed, as a client that switched to JSON would. */
  function sendSignedJson(path: string, fields: Record<string, string>) {
    const hash = signWith(CLIENTS.php, setup.account.secret, 'POST', `${setup.server.config.publicBaseUrl}${path}`, Object.entries(fields));
    return call(setup.server.baseUrl, 'POST', path, {
      headers: { authorization: `${setup.account.receiver_id}:${hash}`, 'content-type': 'application/json' },
      body: fields,
    });
  }

  it('answers a signed JSON create with the 400 naming the body, not a signature refusal', async () => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const res = await sendSignedJson('/2.0/payments', valid);
    expectFields(res, ['body']);
    expect(res.body.errors[0].message).toMatch(/not application\/json/);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
  });

  it('answers a signed JSON receiver with the 400 naming the body', async () => {
    const before = await countRows(setup.server.ctx.db, 'merchants');
    expectFields(await sendSignedJson('/api/2.0/receivers', receiver), ['body']);
    expect(await countRows(setup.server.ctx.db, 'merchants')).toBe(before);
  });
});

describe('unexpected failures', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('are a 503 with no internals on v2, where the clients have no type for a 500', async () => {
    const internals = 'connect ECONNREFUSED db-primary:5432';
    const failing = () => vi.spyOn(setup.server.ctx.merchants, 'byReceiverId').mockRejectedValueOnce(new Error(internals));
    // One failure while the signer is looked up, one in the operation (another account's methods).
    const requests = [
      () => php.request('GET', '/banks'),
      () => client(setup.server.baseUrl, setup.account.api_key).get(`/api/2.0/merchants/${plain.receiver_id}/paymentMethods`),
    ];
    for (const request of requests) {
      failing();
      const res = await request();
      expect(res.status).toBe(503);
      expect(Object.keys(res.body).sort()).toEqual(['message', 'status']);
      expect(res.body.status).toBe(503);
      expect(res.body.message).not.toContain(internals);
      // The message names the request id the failure is logged under.
      expect(res.body.message).toContain(res.headers.get('x-request-id'));
    }
    failing();
    expect((await client(setup.server.baseUrl, setup.account.api_key).get(`/v3/merchants/${plain.receiver_id}/paymentMethods`)).status).toBe(500);
  });
});

describe('predict', () => {
  it('is no v2 operation under either prefix', async () => {
    for (const prefix of ['/2.0', '/api/2.0']) {
      const res = await client(setup.server.baseUrl, setup.account.api_key).get(`${prefix}/predict?amount=1000&currency=CLP&payer_email=p%40payer.example`);
      expect(res.status, prefix).toBe(404);
      expect(res.body).toEqual({ status: 404, message: `No operation GET ${prefix}/predict` });
    }
    expect((await php.request('GET', '/predict')).status).toBe(404);
  });
});
