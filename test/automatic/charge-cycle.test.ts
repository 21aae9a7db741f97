// The automatic payment cycle through its use cases and the background job, against a real server
// and database: a subscription signed at DemoBank is charged; the debit is submitted once, settles
// on the next bank business day of the developer clock and reconciles its payment; insufficient
// funds and a revoked mandate fail the debit and tell error_response_url.
import { beforeAll, describe, expect, it } from 'vitest';
import { collectDebits } from '../../src/app/collect-debits.js';
import { decideDemoMandate } from '../../src/app/demobank-decisions.js';
import { signInForMandate, signMandate, startMandateSigning } from '../../src/app/mandate-signing.js';
import { journaledRequests } from '../../src/bank/demo-bank-books.js';
import { debitsSubmittedTwice } from '../../src/bank/demo-bank-mandates.js';
import { client } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const DAY = 24 * 3_600_000;
let api: ReturnType<typeof client>;

const setup = useTestServer();
beforeAll(() => {
  api = client(setup.server.baseUrl, setup.account.api_key);
});

async function signedSubscription(rut = '11.111.111-1', answers = ['11', '22', '33']) {
  const created = await api.post('/v1/automatic-payment/subscription', {
    name: 'Gym monthly',
    email: 'payer@example.com',
    max_amount: 50000,
    currency: 'CLP',
    notify_url: 'http://127.0.0.1:9/sub',
    return_url: 'https://merchant.example/ok',
    cancel_url: 'https://merchant.example/cancel',
  });
  expect(created.status).toBe(200);
  const id = created.body.subscription_id as string;
  const signing = await startMandateSigning(setup.server.ctx, id, 'Bawdf');
  await signInForMandate(setup.server.ctx, signing.signingId, { identifier: rut, password: '1234' });
  await signMandate(setup.server.ctx, signing.signingId, answers);
  return id;
}

const charge = (subscriptionId: string, amount = 10000) =>
  api.post('/v1/automatic-payment/charge-intent', {
    subscription_id: subscriptionId,
    amount,
    subject: 'November',
    body: 'Monthly fee',
    error_response_url: 'http://127.0.0.1:9/error',
    custom: 'c',
    transaction_id: 'INV-1',
    notify_url: 'http://127.0.0.1:9/notify',
  });

describe('a charge on an enabled subscription', () => {
  it('is submitted once, settles the next business day and is reconciled', async () => {
    const id = await signedSubscription();
    expect((await api.get(`/v1/automatic-payment/subscription/${id}`)).body).toMatchObject({ status: 'ENABLED', customer_bank_code: 'Bawdf', developer: true });
    const created = await charge(id);
    expect(created.status).toBe(200);
    const paymentId = created.body.payment_id as string;
    expect(paymentId).toMatch(/^[a-z0-9]{12}$/);
    expect((await api.get(`/v3/payments/${paymentId}`)).body.status).toBe('pending');
    expect(await collectDebits(setup.server.ctx)).toMatchObject({ submitted: 1 });
    expect((await api.get(`/v3/payments/${paymentId}`)).body.status).toBe('verifying');
    expect(await collectDebits(setup.server.ctx)).toMatchObject({ submitted: 0, asked: 0 });
    setup.server.ctx.clocks.setOffset(setup.server.ctx.clock.offsetMs + 5 * DAY);
    await collectDebits(setup.server.ctx);
    const paid = await api.get(`/v3/payments/${paymentId}`);
    expect(paid.body).toMatchObject({ status: 'done', status_detail: 'normal', transaction_id: 'INV-1', payment_method: 'not_available', bank_id: 'Bawdf' });
    // The v2 read shows the same payment: a charge is an ordinary payment from its creation on.
    const v2 = await api.get(`/2.0/payments/${paymentId}`);
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ payment_id: paymentId, status: 'done', transaction_id: 'INV-1' });
    const requests = await journaledRequests(setup.server.ctx.db, { paymentId, limit: 10 });
    expect(requests.filter((r) => r.operation === 'debit')).toHaveLength(1);
    expect(await debitsSubmittedTwice(setup.server.ctx.db)).toBe(0);
  });

  it('fails for insufficient funds and for a revoked mandate, telling error_response_url', async () => {
    const poor = await signedSubscription('22.222.222-2');
    const revoked = await signedSubscription('12.345.678-5');
    const poorCharge = (await charge(poor)).body.payment_id as string;
    await decideDemoMandate(setup.server.ctx, revoked, 'revoke');
    expect((await api.get(`/v1/automatic-payment/subscription/${revoked}`)).body.status).toBe('DISABLED');
    expect((await charge(revoked)).status).toBe(400);
    await collectDebits(setup.server.ctx);
    setup.server.ctx.clocks.setOffset(setup.server.ctx.clock.offsetMs + 5 * DAY);
    await collectDebits(setup.server.ctx);
    const failed = await api.get(`/v3/payments/${poorCharge}`);
    expect(failed.body).toMatchObject({ status: 'pending', status_detail: 'pending' });
    const errors = await setup.server.ctx.db
      .selectFrom('messages')
      .selectAll()
      .where('kind', '=', 'payment.charge.error')
      .where('subject_id', '=', poorCharge)
      .execute();
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!.body)).toMatchObject({ subscription_id: poor, transaction_id: 'INV-1' });
    expect(JSON.parse(errors[0]!.body).error_message).toContain('Fondos insuficientes');
  });
});

describe('deleting a charge', () => {
  it('cancels a debit not yet submitted, and is refused once it was', async () => {
    const id = await signedSubscription();
    const early = (await charge(id)).body.payment_id as string;
    expect((await api.delete(`/v3/payments/${early}`)).status).toBe(200);
    const late = (await charge(id)).body.payment_id as string;
    await collectDebits(setup.server.ctx);
    const refused = await api.delete(`/v3/payments/${late}`);
    expect(refused.status).toBe(400);
    const debits = await setup.server.ctx.db.selectFrom('debits').select(['payment_id', 'state']).where('payment_id', 'in', [early, late]).execute();
    expect(Object.fromEntries(debits.map((d) => [d.payment_id, d.state]))).toEqual({ [early]: 'cancelled', [late]: 'submitted' });
    const requests = await journaledRequests(setup.server.ctx.db, { paymentId: early, limit: 10 });
    expect(requests).toHaveLength(0);
  });
});
