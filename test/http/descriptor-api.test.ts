// The operation descriptor API and its operations, over HTTP: every field rule broken is a 400
// naming its field (all of them at once) with nothing written; the answer is a UUID and a Base64
// envelope that shows nothing of params; x-api-key and bearer both work, none is 401; a descriptor
// runs at DemoBank once, by its id or by itself, and its result reads as the SDKs return it; a
// tampered, truncated, foreign or expired descriptor and a second run are refused with nothing
// done; another account's operation is 404; key rotation keeps older descriptors opening; the
// result is in the event log; the sandbox shows a descriptor decrypted.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveClock, resetClock } from '../../src/app/developer-clock.js';
import { DEMO_COORDINATES } from '../../src/bank/demo-bank-scenarios.js';
import { OPERATION_LIFETIME_MS, readEnvelope, sealDescriptor } from '../../src/domain/operation-descriptor.js';
import { testWorker } from '../helpers/delivery.js';
import { client, type JsonResponse } from '../helpers/http.js';
import { signedBy, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { clientCredentialsToken } from '../helpers/oauth.js';
import { DESCRIPTOR_PATH, issueOperation, NEW_DESCRIPTOR, operationAtCoordinates, operationPage, runThroughPages } from '../helpers/operations.js';
import { PayerSession, titleOf } from '../helpers/payer-session.js';
import { countRows } from '../helpers/payments.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let account: TestAccount;
let other: TestAccount;
let api: ReturnType<typeof client>;
let hooks: Receiver;

beforeAll(async () => {
  server = await startTestServer();
  hooks = await startReceiver();
  account = await server.account({ notifyUrl: hooks.url });
  other = await server.account();
  api = client(server.baseUrl, account.api_key);
});
afterAll(async () => {
  await hooks?.close();
  await server?.close();
});

const TABLES = ['operations', 'descriptor_keys', 'messages'] as const;
const rowCounts = async () => Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await countRows(server.ctx.db, t)] as const)));
const fieldsOf = (res: JsonResponse) => (res.body.errors as { field: string }[]).map((e) => e.field).sort();
const long = (n: number) => 'x'.repeat(n);
const withParams = (params: Record<string, unknown>) => ({ ...NEW_DESCRIPTOR, params: { ...NEW_DESCRIPTOR.params, ...params } });

/** What DemoBank was asked to transfer for this operation, and what it booked. */
const demoBankOrders = async (operationId: string) =>
  (
    await server.ctx.db
      .withTables<{ demobank_requests: { order_id: string; operation: string } }>()
      .selectFrom('demobank_requests')
      .select('operation')
      .where('order_id', '=', operationId)
      .execute()
  ).filter((r) => r.operation === 'transfer').length;

async function refused(body: unknown, fields: string[]): Promise<JsonResponse> {
  await issueOperation(server.baseUrl, account.api_key);
  const before = await rowCounts();
  const res = await api.post(DESCRIPTOR_PATH, body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ status: 400, message: expect.any(String) });
  expect(fieldsOf(res)).toEqual([...fields].sort());
  expect(await rowCounts()).toEqual(before);
  return res;
}

describe('POST /v1/descriptor/payment', () => {
  it('answers an operation id and a Base64 envelope that shows nothing of params', async () => {
    const res = await api.post(DESCRIPTOR_PATH, NEW_DESCRIPTOR);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['operation']);
    expect(Object.keys(res.body.operation).sort()).toEqual(['description', 'id']);
    const { id, description } = res.body.operation;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(description).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const envelope = JSON.parse(Buffer.from(description, 'base64').toString('utf8'));
    expect(Object.keys(envelope)).toEqual(['m', 'v', 'k', 'n']);
    expect(envelope.v).toBe(1);
    const decoded = Buffer.from(description, 'base64').toString('latin1') + Buffer.from(envelope.m, 'base64').toString('latin1');
    for (const secret of ['Pedido 42', 'Tienda SpA', '123459876', 'payer@example.com', '12.345.678-5', id]) expect(decoded).not.toContain(secret);
    const row = await server.ctx.db.selectFrom('operations').selectAll().where('operation_id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ receiver_id: account.receiver_id, bank: 'Bawdf', state: 'issued', key_id: envelope.k, description });
    expect(Number(row.expires_at) - Number(row.created_at)).toBe(OPERATION_LIFETIME_MS);
    expect(JSON.stringify(row)).not.toContain('Tienda SpA');
  });

  it('seals every descriptor with a fresh nonce', async () => {
    const [a, b] = await Promise.all([issueOperation(server.baseUrl, account.api_key), issueOperation(server.baseUrl, account.api_key)]);
    expect(readEnvelope(a.description)!.n.equals(readEnvelope(b.description)!.n)).toBe(false);
    expect(a.id).not.toBe(b.id);
  });

  it('takes a bearer token as well as x-api-key, and none is a 401', async () => {
    const token = await clientCredentialsToken(server, account);
    const res = await fetch(`${server.baseUrl}${DESCRIPTOR_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(NEW_DESCRIPTOR),
    });
    expect(res.status).toBe(200);
    const before = await rowCounts();
    const none = await fetch(`${server.baseUrl}${DESCRIPTOR_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(NEW_DESCRIPTOR),
    });
    expect(none.status).toBe(401);
    expect(await rowCounts()).toEqual(before);
  });

  it('takes params with no member, and every limit at its edge', async () => {
    expect((await api.post(DESCRIPTOR_PATH, { bank: 'dSXgfesd', params: {} })).status).toBe(200);
    const edge = Object.fromEntries(
      [
        'subject',
        'payer_name',
        'target_account_bank',
        'target_account_alias',
        'target_account_name',
        'target_account_number',
        'target_account_personal_identifier',
      ].map((f) => [f, long(255)]),
    );
    const res = await api.post(DESCRIPTOR_PATH, {
      bank: long(255),
      params: { ...edge, payer_email: `${'a'.repeat(243)}@example.com`, currency_code: 'CLF', amount: 0.0001 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('keeps an account number sent as a JSON number as its decimal text, and a non-RUT identifier as given', async () => {
    const op = await issueOperation(
      server.baseUrl,
      account.api_key,
      withParams({ target_account_number: 123459876, target_account_personal_identifier: 'P-AB123456' }),
    );
    const shown = await api.get(`/sandbox/descriptors/${op.id}`);
    expect(shown.body.params).toMatchObject({ target_account_number: '123459876', target_account_personal_identifier: 'P-AB123456', amount: 15000 });
  });

  it('ignores unknown members and treats null members of params as not given', async () => {
    const res = await api.post(DESCRIPTOR_PATH, { ...withParams({ payer_name: null, nickname: 'x', nested: { a: 1 } }), receiver_id: 1 });
    expect(res.status).toBe(200);
    const op = res.body.operation;
    const shown = await api.get(`/sandbox/descriptors/${op.id}`);
    expect(shown.body.params).not.toHaveProperty('payer_name');
    expect(shown.body.params).not.toHaveProperty('nickname');
    expect(res.headers.get('quipu-ignored-fields')).toBe('params.nested, params.nickname, receiver_id');
  });

  it.each([
    ['bank', undefined, 'bank'],
    ['bank', 42, 'bank'],
    ['bank', long(256), 'bank'],
    ['params', undefined, 'params'],
    ['params', 'subject=x', 'params'],
    ['params', ['x'], 'params'],
    ['params', 7, 'params'],
  ])('%s = %j: a 400 naming it', async (field, value, named) => {
    const body: Record<string, unknown> = { ...NEW_DESCRIPTOR };
    if (value === undefined) delete body[field];
    else body[field] = value;
    await refused(body, [named]);
  });

  it.each([
    ['subject', 5],
    ['amount', '15000'],
    ['amount', 0],
    ['amount', -10],
    ['amount', 10.5],
    ['currency_code', 'XYZ'],
    ['currency_code', 152],
    ['payer_name', 7],
    ['target_account_bank', true],
    ['target_account_name', {}],
    ['target_account_number', false],
    // A JSON number past 2^53 was already changed by the parser: the account would be another one.
    ['target_account_number', 123456789012345678901],
    ['target_account_number', 12345.5],
    ['target_account_number', -5],
    ['target_account_personal_identifier', 12345678],
  ])('params.%s = %j: a 400 naming it', async (field, value) => {
    await refused(withParams({ [field]: value }), [`params.${field}`]);
  });

  it("checks the amount against the currency's decimals, and without one against the peso's, which the transfer runs in", async () => {
    await refused(withParams({ currency_code: 'USD', amount: 1.005 }), ['params.amount']);
    await refused({ bank: 'Bawdf', params: { amount: 1.5 } }, ['params.amount']);
    expect((await api.post(DESCRIPTOR_PATH, { bank: 'Bawdf', params: { amount: 1500 } })).status).toBe(200);
    expect((await api.post(DESCRIPTOR_PATH, { bank: 'Bawdf', params: { currency_code: 'CLF', amount: 1.0001 } })).status).toBe(200);
  });

  it('takes a long account number as a string', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key, withParams({ target_account_number: '123456789012345678901' }));
    expect((await api.get(`/sandbox/descriptors/${op.id}`)).body.params).toMatchObject({ target_account_number: '123456789012345678901' });
  });

  it('names unknown members of params as ignored, and refuses one beside no currency_code: it may be the currency misspelled', async () => {
    const named = await api.post(DESCRIPTOR_PATH, withParams({ reference: 'R-1' }));
    expect(named.status).toBe(200);
    expect(named.headers.get('quipu-ignored-fields')).toBe('params.reference');
    const { currency_code: _currency, ...withoutCurrency } = NEW_DESCRIPTOR.params;
    const res = await refused({ ...NEW_DESCRIPTOR, params: { ...withoutCurrency, currency_cod: 'USD' } }, ['params.currency_cod', 'params.currency_code']);
    expect(res.body.errors).toContainEqual({ field: 'params.currency_cod', message: 'is not a known field (did you mean params.currency_code?)' });
    expect(res.headers.get('quipu-likely-typos')).toBe('params.currency_cod=params.currency_code');
  });

  it('names every offending field at once', async () => {
    await refused({ bank: 1, params: { amount: 'x', payer_email: 5, target_account_number: [1] } }, [
      'bank',
      'params.amount',
      'params.payer_email',
      'params.target_account_number',
    ]);
  });
});

describe('running an operation at DemoBank', () => {
  it('runs by the descriptor itself, transfers once, and reads OK', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    const credits = await server.ctx.db
      .withTables<{ demobank_transfers: { credit_seq: number | null } }>()
      .selectFrom('demobank_transfers')
      .select('credit_seq')
      .where('credit_seq', 'is not', null)
      .execute();
    const landed = await runThroughPages(server.baseUrl, op.description);
    expect(landed.status).toBe(200);
    expect(landed.html).toContain('data-result="OK"');
    const result = await api.get(`/quipu/v1/operations/${op.id}`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ operationId: op.id, result: 'OK', exitTitle: expect.any(String), exitMessage: expect.any(String) });
    expect(result.body).not.toHaveProperty('failureReason');
    expect(result.body.events.map((e: { name: string }) => e.name)).toEqual([
      'OPERATION_ISSUED',
      'PAYER_AUTHENTICATED',
      'TRANSFER_SUBMITTED',
      'TRANSFER_EXECUTED',
    ]);
    expect(await demoBankOrders(op.id)).toBe(1);
    // The money went to the merchant's own account: nothing joins the collection account's credits.
    const after = await server.ctx.db
      .withTables<{ demobank_transfers: { credit_seq: number | null } }>()
      .selectFrom('demobank_transfers')
      .select('credit_seq')
      .where('credit_seq', 'is not', null)
      .execute();
    expect(after.length).toBe(credits.length);
  });

  it('shows the target account and amount from the descriptor, not from the URL', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    const page = await new PayerSession(server.baseUrl).get(`${operationPage(op.id)}?amount=1&target_account_number=999`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<dd class="target-number">123459876</dd>');
    expect(page.html).toContain('<dd class="amount">$15.000</dd>');
    expect(page.html).toContain('<dd class="target-name">Tienda SpA</dd>');
    expect(page.html).not.toContain('999');
  });

  it("the failure coordinates read ERROR with the bank's words", async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    const landed = await runThroughPages(server.baseUrl, op.id, DEMO_COORDINATES.fail);
    expect(landed.html).toContain('data-result="ERROR"');
    const result = await api.get(`/quipu/v1/operations/${op.id}`);
    expect(result.body).toMatchObject({ result: 'ERROR', failureReason: 'TRANSFER_FAILED', exitMessage: 'Error ejecutando transferencia' });
  });

  it('other coordinates leave it uncertain: WARNING', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    await runThroughPages(server.baseUrl, op.id, ['12', '34', '56']);
    expect((await api.get(`/quipu/v1/operations/${op.id}`)).body).toMatchObject({ result: 'WARNING', failureReason: 'TRANSFER_UNCERTAIN' });
  });

  it('a second run is refused with nothing transferred twice, whether the tab submits again or the page is opened again', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    const tab = await operationAtCoordinates(server.baseUrl, op.id);
    const [first, second] = await Promise.all([tab.submit(DEMO_COORDINATES.pay), tab.submit(DEMO_COORDINATES.pay)]);
    expect([first.status, second.status].sort()).toEqual([303, 409]);
    const again = await tab.submit(DEMO_COORDINATES.pay);
    expect(again.status).toBe(409);
    const reopened = await new PayerSession(server.baseUrl).get(operationPage(op.description));
    expect(reopened.status).toBe(409);
    expect(reopened.html).toContain('data-result="OK"');
    expect(reopened.html).not.toContain('name="rut"');
    expect(await demoBankOrders(op.id)).toBe(1);
    expect((await api.get(`/quipu/v1/operations/${op.id}`)).body.events.filter((e: { name: string }) => e.name === 'TRANSFER_SUBMITTED')).toHaveLength(1);
  });

  it('records the result in the event log, signed, to the account notify_url', async () => {
    const worker = testWorker(server);
    try {
      const op = await issueOperation(server.baseUrl, account.api_key);
      await runThroughPages(server.baseUrl, op.id);
      const events = await api.get(`/quipu/v1/events?kind=operation.result&subject_id=${op.id}`);
      expect(events.body.events).toHaveLength(1);
      expect(events.body.events[0]).toMatchObject({ kind: 'operation.result', subject_type: 'operation', subject_id: op.id, destination: hooks.url });
      await hooks.waitFor((requests) => requests.some((r) => r.body.includes(op.id)));
      const delivered = hooks.requests.find((r) => r.body.includes(op.id))!;
      expect(signedBy(account.secret, delivered)).toBe(true);
      expect(JSON.parse(delivered.body)).toEqual((await api.get(`/quipu/v1/operations/${op.id}`)).body);
    } finally {
      await worker.stop();
    }
  });
});

describe('descriptors refused with nothing done', () => {
  async function refusedPage(ref: string, status: number): Promise<string> {
    const before = await countRows(server.ctx.db, 'operations');
    const page = await new PayerSession(server.baseUrl).get(operationPage(ref));
    expect(page.status).toBe(status);
    expect(page.html).not.toContain('name="rut"');
    expect(await countRows(server.ctx.db, 'operations')).toBe(before);
    return titleOf(page);
  }

  it('tampered: a flipped bit of the ciphertext, or another key id', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    const envelope = JSON.parse(Buffer.from(op.description, 'base64').toString('utf8'));
    const m = Buffer.from(envelope.m, 'base64');
    m[5]! ^= 1;
    const reseal = (changes: object) => Buffer.from(JSON.stringify({ ...envelope, ...changes })).toString('base64');
    expect(await refusedPage(reseal({ m: m.toString('base64') }), 404)).toBe('Operación no encontrada');
    expect(await refusedPage(reseal({ k: 'ffffffffffffffff' }), 404)).toBe('Operación no encontrada');
    expect(await refusedPage(reseal({ v: 2 }), 404)).toBe('Operación no encontrada');
    expect((await api.get(`/quipu/v1/operations/${op.id}`)).body.result).toBe('CONTINUE');
  });

  it('truncated, or not a descriptor at all', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    await refusedPage(op.description.slice(0, -8), 404);
    await refusedPage(op.description.slice(0, 100), 404);
    await refusedPage('bm90IGEgZGVzY3JpcHRvcg==', 404);
    await refusedPage('00000000-0000-4000-8000-000000000000', 404);
  });

  it('foreign: sealed by another installation under the same key id', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    const kid = readEnvelope(op.description)!.k;
    const now = Date.now();
    const foreign = sealDescriptor(
      {
        operationId: op.id,
        receiverId: account.receiver_id,
        bank: 'Bawdf',
        params: { amount: '1', target_account_number: '1' },
        createdAt: now,
        expiresAt: now + 3600_000,
      },
      { kid, secret: randomBytes(32) },
      randomBytes(12),
    );
    await refusedPage(foreign, 404);
  });

  it('expired: refused on its page, and ERROR when read', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    const tab = await operationAtCoordinates(server.baseUrl, op.id);
    try {
      await moveClock(server.ctx, { advance: '25h' });
      expect(await refusedPage(op.description, 410)).toBe('Operación vencida');
      expect((await tab.submit(DEMO_COORDINATES.pay)).status).toBe(409);
      expect(await demoBankOrders(op.id)).toBe(0);
      expect((await api.get(`/quipu/v1/operations/${op.id}`)).body).toMatchObject({ result: 'ERROR', failureReason: 'OPERATION_EXPIRED' });
    } finally {
      await resetClock(server.ctx);
    }
  });

  it('one that names no amount or no target account cannot run', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key, { bank: 'Bawdf', params: { subject: 'x' } });
    expect(await refusedPage(op.id, 422)).toBe('Operación incompleta');
  });
});

describe("another account's operations", () => {
  it('are 404 for the result and the sandbox, and unknown ids too', async () => {
    const op = await issueOperation(server.baseUrl, account.api_key);
    const theirs = client(server.baseUrl, other.api_key);
    for (const path of [`/quipu/v1/operations/${op.id}`, `/sandbox/descriptors/${op.id}`, `/sandbox/descriptors/${encodeURIComponent(op.description)}`]) {
      const res = await theirs.get(path);
      expect(res.status, path).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('Tienda');
    }
    expect((await api.get('/quipu/v1/operations/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api.get('/quipu/v1/operations/not-an-id')).status).toBe(404);
  });

  it('the sandbox is refused to production accounts', async () => {
    const production = await server.account({ developer: false });
    const op = await issueOperation(server.baseUrl, production.api_key);
    expect((await client(server.baseUrl, production.api_key).get(`/sandbox/descriptors/${op.id}`)).status).toBe(403);
  });
});

describe('key rotation', () => {
  it('seals with the new key from then on, and descriptors sealed before still run', async () => {
    const before = await issueOperation(server.baseUrl, account.api_key);
    const rotation = await server.ctx.descriptorKeys.rotate();
    expect(rotation.retired).toContain(readEnvelope(before.description)!.k);
    const after = await issueOperation(server.baseUrl, account.api_key);
    expect(readEnvelope(after.description)!.k).toBe(rotation.kid);
    expect(readEnvelope(before.description)!.k).not.toBe(rotation.kid);
    for (const op of [before, after]) {
      const shown = await api.get(`/sandbox/descriptors/${encodeURIComponent(op.description)}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ operation_id: op.id, params: { target_account_name: 'Tienda SpA' } });
      expect((await runThroughPages(server.baseUrl, op.description)).html).toContain('data-result="OK"');
    }
  });
});
