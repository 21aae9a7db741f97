// Charge intents that arrive together are written together (store/charges.ts) and their
// subscriptions looked up together (store/group-read.ts), on the database under test: a charge
// whose payment or debit breaks a rule fails alone and leaves neither row, and each lookup gets
// its own subscription.
import { beforeAll, describe, expect, it } from 'vitest';
import { insertCharge, type ChargeRows } from '../../src/store/charges.js';
import { findSubscription, findSubscriptionById } from '../../src/store/subscriptions.js';
import { client } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

let api: ReturnType<typeof client>;
let subscriptionId: string;

const setup = useTestServer();
beforeAll(async () => {
  api = client(setup.server.baseUrl, setup.account.api_key);
  subscriptionId = await createSubscriptionOver(api);
  await signAtDemoBank(setup.server.ctx, subscriptionId);
});

describe('charges written together', () => {
  it('answers charge intents sent at once, each with its payment and its debit', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.post('/v1/automatic-payment/charge-intent', newCharge(subscriptionId, { transaction_id: `AT-ONCE-${i}` }))),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const ids = answers.map((a) => a.body.payment_id as string);
    const debits = await setup.server.ctx.db.selectFrom('debits').select('payment_id').where('payment_id', 'in', ids).execute();
    expect(debits.map((d) => d.payment_id).sort()).toEqual([...ids].sort());
  });

  it('fails only the charge whose payment or debit breaks a rule, leaving neither of its rows', async () => {
    const template = (await api.post('/v1/automatic-payment/charge-intent', newCharge(subscriptionId))).body.payment_id as string;
    const payment = await setup.server.ctx.db.selectFrom('payments').selectAll().where('payment_id', '=', template).executeTakeFirstOrThrow();
    const debit = await setup.server.ctx.db.selectFrom('debits').selectAll().where('payment_id', '=', template).executeTakeFirstOrThrow();
    const fresh = (n: number): ChargeRows => {
      const paymentId = `chbat${String(n).padStart(7, '0')}`;
      return {
        payment: { ...payment, payment_id: paymentId, notification_token: `${n}`.padStart(64, 'e') },
        debit: { ...debit, debit_id: `debit-${paymentId}`, payment_id: paymentId },
      };
    };
    const takenPayment = fresh(2);
    takenPayment.payment.payment_id = template;
    takenPayment.debit.payment_id = template;
    // Its payment is new, its debit's id is another debit's: the payment must not stay alone.
    const takenDebit = fresh(3);
    takenDebit.debit.debit_id = debit.debit_id;
    const results = await Promise.allSettled([fresh(1), takenPayment, takenDebit, fresh(4)].map((c) => insertCharge(setup.server.ctx.db, c)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    const payments = await setup.server.ctx.db.selectFrom('payments').select('payment_id').where('payment_id', 'like', 'chbat%').execute();
    const debits = await setup.server.ctx.db.selectFrom('debits').select('payment_id').where('payment_id', 'like', 'chbat%').execute();
    expect(payments.map((r) => r.payment_id).sort()).toEqual(['chbat0000001', 'chbat0000004']);
    expect(debits.map((r) => r.payment_id).sort()).toEqual(['chbat0000001', 'chbat0000004']);
  });
});

describe('subscriptions looked up together', () => {
  it('gives each lookup of a turn its own subscription, none for an unknown id or another account', async () => {
    const other = await createSubscriptionOver(api, { name: 'Pool monthly' });
    const stranger = await setup.server.account();
    const [first, second, again, unknown, foreign] = await Promise.all([
      findSubscriptionById(setup.server.ctx.db, subscriptionId),
      findSubscriptionById(setup.server.ctx.db, other),
      findSubscriptionById(setup.server.ctx.db, subscriptionId),
      findSubscriptionById(setup.server.ctx.db, '00000000-0000-4000-8000-000000000000'),
      findSubscription(setup.server.ctx.db, stranger.receiver_id, other),
    ]);
    expect(first).toMatchObject({ subscriptionId, state: 'enabled' });
    expect(again).toMatchObject({ subscriptionId, state: 'enabled' });
    expect(second).toMatchObject({ subscriptionId: other, name: 'Pool monthly', state: 'created' });
    expect(unknown).toBeUndefined();
    expect(foreign).toBeUndefined();
  });
});
