// Every v2 operation, driven the way each official v2 library drives it (its value formats, form
// encoding, signature and base path), against a real server. Each answer keeps the contract's
// field types: shapes shared with v3 are checked against the provider's v3 schema, and the v2
// differences (conciliation_date absent until reconciled) are asserted on their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { assertProviderSchema } from '../helpers/openapi.js';
import { payByTransfer } from '../helpers/payments.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { type ClientName, v2Client } from '../helpers/v2-clients.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const CLIENT_NAMES: ClientName[] = ['ruby', 'java', 'php', 'dotnet'];
// The libraries' default base path, and the contract's.
const PREFIXES = ['/api/2.0', '/2.0'];

function clientFor(name: ClientName, account: { receiver_id: number; secret: string }, prefix: string) {
  return v2Client(name, account, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}${prefix}`, prefix });
}

const receiverForm = {
  admin_first_name: 'Ana',
  admin_last_name: 'Pérez',
  admin_email: 'ana@tienda.example',
  country_code: 'CL',
  business_identifier: '76.123.456-7',
  business_category: 'Comercio minorista',
  business_name: 'Tienda de Ana & Cía.',
  business_phone: '+56 2 2345 6789',
  business_address_line_1: 'Av. Providencia 1234',
  business_address_line_2: 'Oficina 56',
  business_address_line_3: 'Santiago',
  contact_full_name: 'Ana Pérez',
  contact_job_title: 'Gerente',
  contact_email: 'contacto@tienda.example',
  contact_phone: '+56 9 8765 4321',
};

describe.each(CLIENT_NAMES)('the %s client', (name) => {
  describe.each(PREFIXES)('under %s', (prefix) => {
    let account: TestAccount;
    let v2: ReturnType<typeof clientFor>;
    let v3: ReturnType<typeof client>;
    const expires = new Date(Math.floor(Date.now() / 1000) * 1000 + 5 * 24 * 3_600_000);
    const form = {
      subject: 'Compra ñandú & más: 100% (oferta) ~ *',
      currency: 'CLP',
      amount: 1000,
      transaction_id: 'ORDER-42/β',
      custom: '<cart><item qty="1">Té verde</item></cart>',
      body: 'Línea 1\nLínea 2 + más',
      return_url: 'https://tienda.example/return?order=42&x=a b',
      cancel_url: 'https://tienda.example/cancel',
      notify_url: 'https://tienda.example/notify',
      notify_api_version: '1.3',
      expires_date: expires,
      send_email: true,
      payer_name: 'Juan Pagador',
      payer_email: 'juan@payer.example',
      send_reminders: false,
      responsible_user_email: 'owner@example.com',
    };
    let paymentId = '';

    beforeAll(async () => {
      account = await server.account({ features: { confirm: true, refunds: true, integrator: true } });
      v2 = clientFor(name, account, prefix);
      v3 = client(server.baseUrl, account.api_key);
    });

    it('lists banks', async () => {
      const res = await v2.request('GET', '/banks');
      expect(res.status).toBe(200);
      assertProviderSchema('bank-get-banks', res.body);
      expect(res.body.banks.map((b: { bank_id: string }) => b.bank_id)).toContain('Bawdf');
    });

    it("lists the account's payment methods", async () => {
      const res = await v2.request('GET', `/merchants/${account.receiver_id}/paymentMethods`);
      expect(res.status).toBe(200);
      assertProviderSchema('merchant-get-payment-methods', res.body);
      expect(res.body).toEqual((await v3.get(`/v3/merchants/${account.receiver_id}/paymentMethods`)).body);
    });

    it('creates a payment from a form with every value written its way, readable through v3', async () => {
      const created = await v2.request('POST', '/payments', { form });
      expect(created.status).toBe(200);
      assertProviderSchema('payment-post-payment-2', created.body);
      paymentId = created.body.payment_id;

      const [byV2, byV3] = await Promise.all([v2.request('GET', `/payments/${paymentId}`), v3.get(`/v3/payments/${paymentId}`)]);
      expect(byV2.status).toBe(200);
      expect(byV3.status).toBe(200);
      assertProviderSchema('payment-get-payment', byV3.body);
      // v2 differs from v3 only in leaving out conciliation_date until reconciliation.
      expect(byV2.body).not.toHaveProperty('conciliation_date');
      expect({ ...byV2.body, conciliation_date: byV3.body.conciliation_date }).toEqual(byV3.body);
      expect(byV2.body).toMatchObject({
        subject: form.subject,
        amount: 1000,
        currency: 'CLP',
        transaction_id: form.transaction_id,
        custom: form.custom,
        body: form.body,
        return_url: form.return_url,
        notify_api_version: '1.3',
        expires_date: expires.toISOString(),
        send_email: true,
        send_reminders: false,
        payer_email: form.payer_email,
        responsible_user_email: 'owner@example.com',
        discount: 0,
        third_party_authorization_details: '',
        status: 'pending',
      });
    });

    it('finds the payment by the token of a 1.3 notification once reconciled', async () => {
      const paid = await payByTransfer(server.ctx, account.merchant, paymentId);
      const res = await v2.request('GET', '/payments', { query: { notification_token: paid.notificationToken } });
      expect(res.status).toBe(200);
      // Reconciled, the v2 payment has the v3 shape exactly.
      assertProviderSchema('payment-get-payment', res.body);
      expect(res.body).toEqual((await v3.get(`/v3/payments/${paymentId}`)).body);
      expect(res.body).toMatchObject({ payment_id: paymentId, status: 'done', conciliation_date: paid.conciliationAt!.toISOString() });
    });

    it('confirms the paid payment', async () => {
      const res = await v2.request('POST', `/payments/${paymentId}/confirm`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['message']);
      expect(typeof res.body.message).toBe('string');
    });

    it('refunds part of the payment from a form amount, then the rest with no amount', async () => {
      const partial = await v2.request('POST', `/payments/${paymentId}/refunds`, { form: { amount: 400 } });
      expect(partial.status).toBe(200);
      expect(Object.keys(partial.body)).toEqual(['message']);
      const rest = await v2.request('POST', `/payments/${paymentId}/refunds`);
      expect(rest.status).toBe(200);
      const after = await v2.request('GET', `/payments/${paymentId}`);
      expect(after.body).toMatchObject({ status: 'done', status_detail: 'reversed' });
    });

    it('deletes a pending payment, after which it is gone', async () => {
      const created = await v2.request('POST', '/payments', { form: { subject: 'To delete', currency: 'CLP', amount: 500 } });
      expect(created.status).toBe(200);
      const deleted = await v2.request('DELETE', `/payments/${created.body.payment_id}`);
      expect(deleted.status).toBe(200);
      expect(Object.keys(deleted.body)).toEqual(['message']);
      expect((await v2.request('GET', `/payments/${created.body.payment_id}`)).status).toBe(404);
    });

    it('creates a receiver whose credentials sign requests at once', async () => {
      const res = await v2.request('POST', '/receivers', { form: receiverForm });
      expect(res.status).toBe(200);
      assertProviderSchema('receiver-post-receiver-2', res.body);
      expect(res.body.receiver_id).toMatch(/^\d+$/);
      expect(res.body.secret).toMatch(/^[0-9a-f]{40}$/);
      const child = clientFor(name, { receiver_id: Number(res.body.receiver_id), secret: res.body.secret }, prefix);
      expect((await child.request('GET', '/banks')).status).toBe(200);
      const methods = await v2.request('GET', `/merchants/${res.body.receiver_id}/paymentMethods`);
      expect(methods.status).toBe(200);
    });
  });
});

describe('a payment created through v3', () => {
  it('reads through v2 with the v2 differences only', async () => {
    const account = await server.account();
    const v3 = client(server.baseUrl, account.api_key);
    const created = await v3.post('/v3/payments', { amount: 12.5, currency: 'USD', subject: 'From v3' });
    expect(created.status).toBe(200);
    const v2 = clientFor('java', account, '/2.0');
    const [byV2, byV3] = await Promise.all([v2.request('GET', `/payments/${created.body.payment_id}`), v3.get(`/v3/payments/${created.body.payment_id}`)]);
    expect(byV2.status).toBe(200);
    expect(byV2.body).not.toHaveProperty('conciliation_date');
    expect({ ...byV2.body, conciliation_date: byV3.body.conciliation_date }).toEqual(byV3.body);
    expect(byV2.body).toMatchObject({ amount: 12.5, currency: 'USD', discount: 0, third_party_authorization_details: '' });
  });
});

describe('a payment created through v3', () => {
  it('is deleted through v2 while pending, and confirmed then refunded through v2 once paid', async () => {
    const account = await server.account({ features: { confirm: true, refunds: true } });
    const v3 = client(server.baseUrl, account.api_key);
    const v2 = clientFor('ruby', account, '/api/2.0');
    const pending = await v3.post('/v3/payments', { amount: 2500, currency: 'CLP', subject: 'From v3, deleted by v2' });
    expect((await v2.request('DELETE', `/payments/${pending.body.payment_id}`)).status).toBe(200);
    expect((await v3.get(`/v3/payments/${pending.body.payment_id}`)).status).toBe(404);

    const paid = await v3.post('/v3/payments', { amount: 2500, currency: 'CLP', subject: 'From v3, settled by v2' });
    await payByTransfer(server.ctx, account.merchant, paid.body.payment_id);
    expect((await v2.request('POST', `/payments/${paid.body.payment_id}/confirm`)).status).toBe(200);
    // Confirmed once, whichever version asks again.
    expect((await v3.post(`/v3/payments/${paid.body.payment_id}/confirm`)).status).toBe(400);
    expect((await v2.request('POST', `/payments/${paid.body.payment_id}/refunds`, { form: { amount: 1000 } })).status).toBe(200);
    expect((await v3.post(`/v3/payments/${paid.body.payment_id}/refunds`, { amount: 1501 })).status).toBe(400);
    expect((await v2.request('POST', `/payments/${paid.body.payment_id}/refunds`)).status).toBe(200);
    expect((await v3.get(`/v3/payments/${paid.body.payment_id}`)).body).toMatchObject({ status: 'done', status_detail: 'reversed' });
  });
});

describe('a payment created through v2', () => {
  it('is refunded and confirmed through v3 once paid, and deleted through v3 while pending', async () => {
    const account = await server.account({ features: { confirm: true, refunds: true } });
    const v3 = client(server.baseUrl, account.api_key);
    const v2 = clientFor('dotnet', account, '/2.0');
    const paid = await v2.request('POST', '/payments', { form: { subject: 'From v2, settled by v3', currency: 'CLP', amount: 3000 } });
    await payByTransfer(server.ctx, account.merchant, paid.body.payment_id);
    expect((await v3.post(`/v3/payments/${paid.body.payment_id}/confirm`)).status).toBe(200);
    expect((await v2.request('POST', `/payments/${paid.body.payment_id}/confirm`)).status).toBe(503);
    expect((await v3.post(`/v3/payments/${paid.body.payment_id}/refunds`, { amount: 1000 })).status).toBe(200);
    const refunded = await v2.request('GET', `/payments/${paid.body.payment_id}`);
    expect(refunded.body).toMatchObject({ status: 'done', status_detail: 'normal', amount: 3000 });
    expect((await v2.request('POST', `/payments/${paid.body.payment_id}/refunds`, { form: { amount: 2001 } })).status).toBe(400);
    expect((await v3.post(`/v3/payments/${paid.body.payment_id}/refunds`)).status).toBe(200);
    expect((await v2.request('GET', `/payments/${paid.body.payment_id}`)).body.status_detail).toBe('reversed');

    const pending = await v2.request('POST', '/payments', { form: { subject: 'From v2, deleted by v3', currency: 'CLP', amount: 3000 } });
    expect((await v3.delete(`/v3/payments/${pending.body.payment_id}`)).status).toBe(200);
    expect((await v2.request('GET', `/payments/${pending.body.payment_id}`)).status).toBe(404);
  });
});

describe('the Java client and amounts from 10^7 up', () => {
  // Java signs a double's Double.toString and sends BigDecimal.valueOf(d): "1.0E7" signed, "1.0E+7"
  // sent; "1.23456785E7" signed, "12345678.5" sent.
  it('writes them as the library does', () => {
    const java = clientFor('java', { receiver_id: 1, secret: 'x' }, '/2.0');
    expect([java.signedValue(10_000_000), java.value(10_000_000)]).toEqual(['1.0E7', '1.0E+7']);
    expect([java.signedValue(12_345_678.5), java.value(12_345_678.5)]).toEqual(['1.23456785E7', '12345678.5']);
    expect([java.signedValue(1000), java.value(1000)]).toEqual(['1000.0', '1000.0']);
  });

  it.each([
    [10_000_000, 'CLP'],
    [25_000_000_000, 'CLP'],
    [12_345_678.5, 'USD'],
    [12_345_678, 'CLP'],
  ])('creates a payment of %s %s, read back exactly', async (amount, currency) => {
    const account = await server.account();
    const java = clientFor('java', account, '/api/2.0');
    const prepared = java.prepare('POST', '/payments', { form: { subject: 'Large', currency, amount } });
    expect(java.signedValue(amount)).not.toBe(java.value(amount));
    expect(prepared.body).toContain(`amount=${encodeURIComponent(java.value(amount))}`);
    const created = await java.send(prepared);
    expect(created.status).toBe(200);
    expect((await client(server.baseUrl, account.api_key).get(`/v3/payments/${created.body.payment_id}`)).body.amount).toBe(amount);
  });

  it('refuses another amount sent than the one signed', async () => {
    const account = await server.account();
    const java = clientFor('java', account, '/2.0');
    const prepared = java.prepare('POST', '/payments', { form: { subject: 'Large', currency: 'CLP', amount: 10_000_000 } });
    expect(prepared.body).toContain('amount=1.0E%2B7');
    for (const sent of ['2.0E%2B7', '1.0E%2B8', '10000001', '1.1E7']) {
      const res = await java.send({ ...prepared, body: prepared.body!.replace('amount=1.0E%2B7', `amount=${sent}`) });
      expect(res.status, sent).toBe(403);
    }
  });
});

describe('the PHP client', () => {
  it('writes dates in their own zone and false as 0', () => {
    const php = clientFor('php', { receiver_id: 1, secret: 'x' }, '/2.0');
    expect(php.value(new Date('2031-03-01T13:00:00Z'))).toBe('2031-03-01T10:00:00-0300');
    expect(php.value(false)).toBe('0');
  });
});

describe('a CLF payment created through v3', () => {
  it('reads through v2 as it is, although v2 does not create CLF payments', async () => {
    const account = await server.account();
    const v3 = client(server.baseUrl, account.api_key);
    const created = await v3.post('/v3/payments', { amount: 1.2345, currency: 'CLF', subject: 'UF from v3' });
    expect(created.status).toBe(200);
    for (const name of CLIENT_NAMES) {
      const res = await clientFor(name, account, '/api/2.0').request('GET', `/payments/${created.body.payment_id}`);
      expect(res.status, name).toBe(200);
      expect(res.body).toMatchObject({ payment_id: created.body.payment_id, amount: 1.2345, currency: 'CLF' });
    }
  });
});
