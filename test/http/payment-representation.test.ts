// A GET of an unchanged payment answers with the bytes serialised the first time
// (src/http/representation-cache.ts): every answer must still be the one the payment, the account
// and the surface call for, the moment anything of them changes.
import { describe, expect, it } from 'vitest';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { client } from '../helpers/http.js';
import { assertProviderSchema } from '../helpers/openapi.js';
import { payByTransfer } from '../helpers/payments.js';
import { useTestServer } from '../helpers/server.js';
import { v2Client } from '../helpers/v2-clients.js';

const setup = useTestServer({}, { notifyUrl: 'https://shop.example/first' });

const api = () => client(setup.server.baseUrl, setup.account.api_key);
/** The answer as bytes, to compare answers exactly. */
const raw = async (path: string) => {
  const res = await fetch(`${setup.server.baseUrl}${path}`, { headers: { 'x-api-key': setup.account.api_key } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};
const create = async () => (await api().post('/v3/payments', { amount: 1500, currency: 'CLP', subject: 'Cached answer' })).body.payment_id as string;

describe('answers to a payment read again', () => {
  it('are the same bytes while nothing changes, and follow the payment when it does', async () => {
    const id = await create();
    const first = await raw(`/v3/payments/${id}`);
    const again = await raw(`/v3/payments/${id}`);
    expect(again).toEqual(first);
    expect(again.type).toBe('application/json; charset=utf-8');
    const body = JSON.parse(again.text);
    assertProviderSchema('payment-get-payment', body);
    expect(body).toMatchObject({ status: 'pending', bank_id: '' });

    await payByTransfer(setup.server.ctx, setup.account.merchant, id);
    const paid = await api().get(`/v3/payments/${id}`);
    expect(paid.body).toMatchObject({ status: 'done', status_detail: 'normal', bank_id: 'Bawdf' });
    assertProviderSchema('payment-get-payment', paid.body);
  });

  it("follow the account's default notify_url when it changes", async () => {
    const id = await create();
    expect((await api().get(`/v3/payments/${id}`)).body.notify_url).toBe('https://shop.example/first');
    await updateMerchant(setup.server.ctx, setup.account.receiver_id, { notifyUrl: 'https://shop.example/second' });
    expect((await api().get(`/v3/payments/${id}`)).body.notify_url).toBe('https://shop.example/second');
  });

  it('keep the v2 shape apart from the v3 shape of the same payment', async () => {
    const id = await create();
    const v3 = await raw(`/v3/payments/${id}`);
    const v2 = v2Client('ruby', setup.account, {
      networkUrl: setup.server.baseUrl,
      signedBase: `${setup.server.config.publicBaseUrl}/api/2.0`,
      prefix: '/api/2.0',
    });
    const legacy = await v2.request('GET', `/payments/${id}`);
    expect(legacy.status).toBe(200);
    // v2 leaves conciliation_date out until the payment is reconciled; v3 always has it.
    expect(JSON.parse(v3.text).conciliation_date).toEqual(expect.any(String));
    expect(legacy.body).not.toHaveProperty('conciliation_date');
    expect(legacy.body).toMatchObject({ payment_id: id, status: 'pending' });
    expect(await raw(`/v3/payments/${id}`)).toEqual(v3);
  });
});
