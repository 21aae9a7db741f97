// Debits in batches, as the debit job sends them: DemoBank answers a batch order by order (a debit
// it takes, one over the mandate's maximum, one under a revoked mandate), counts an order sent
// again as one debit received twice, and journals every order; a batch of answers applies only to
// the debits still in the state they were asked in, and leaves the others and their payments alone.
import { beforeAll, describe, expect, it } from 'vitest';
import { applyDebitResults } from '../../src/app/apply-debit.js';
import { changeDebit } from '../../src/app/change-debit.js';
import { decideDemoMandate } from '../../src/app/demobank-decisions.js';
import type { BankCall, DebitOrder, MandateBank } from '../../src/bank/connector.js';
import { journaledRequests } from '../../src/bank/demo-bank-books.js';
import { debitsSubmittedTwice } from '../../src/bank/demo-bank-mandates.js';
import { DEMO_BANK_ID } from '../../src/domain/banks.js';
import type { Debit } from '../../src/domain/debit.js';
import { findDebitOfPayment } from '../../src/store/debits.js';
import { client } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

const NOWHERE = 'http://127.0.0.1:9/nowhere';
let api: ReturnType<typeof client>;
let bank: MandateBank;

const setup = useTestServer();
beforeAll(() => {
  api = client(setup.server.baseUrl, setup.account.api_key);
  bank = setup.server.ctx.banks.mandatesAt(DEMO_BANK_ID)!;
});

const call = (): BankCall => ({
  now: setup.server.ctx.clock.now(),
  account: setup.account.receiver_id,
  time: setup.server.ctx.clocks.scanTime(),
  transfersHeld: async () => false,
});

async function dueDebit(subscriptionId: string): Promise<Debit> {
  const created = await api.post(
    '/v1/automatic-payment/charge-intent',
    newCharge(subscriptionId, { amount: 100, notify_url: NOWHERE, error_response_url: NOWHERE }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return (await findDebitOfPayment(setup.server.ctx.db, created.body.payment_id))!;
}

const orderOf = (debit: Debit): DebitOrder => ({
  orderId: debit.debitId,
  mandateId: debit.subscriptionId,
  reference: debit.paymentId,
  account: setup.server.ctx.config.collectionAccount.number,
  destination: setup.server.ctx.config.collectionAccount,
  amount: debit.amount,
  currency: debit.currency,
});

async function enabledSubscription(): Promise<string> {
  const id = await createSubscriptionOver(api, { notify_url: NOWHERE });
  await signAtDemoBank(setup.server.ctx, id);
  return id;
}

describe("DemoBank's batch of debits", () => {
  it('answers each order of a batch in its order, refusing those it must, and counts an order sent again', async () => {
    const active = await enabledSubscription();
    const revoked = await enabledSubscription();
    const taken = await dueDebit(active);
    const tooMuch = await dueDebit(active);
    const unauthorised = await dueDebit(revoked);
    await decideDemoMandate(setup.server.ctx, revoked, 'revoke');
    // Quipu refuses a charge over the maximum itself; a bank checks it all the same.
    const orders = [orderOf(taken), { ...orderOf(tooMuch), amount: 10 ** 12 }, orderOf(unauthorised)];

    const first = await bank.submitDebits(orders, call());
    expect(first).toEqual([
      { status: 'accepted', settlesAt: expect.any(Date) },
      { status: 'failed', message: 'Monto supera el máximo del mandato' },
      { status: 'failed', message: 'Mandato revocado por el titular' },
    ]);
    expect(await debitsSubmittedTwice(setup.server.ctx.db)).toBe(0);
    // Sent again, the same orders get the same answers, and DemoBank's books say each came twice.
    expect(await bank.submitDebits(orders, call())).toEqual(first);
    expect(await debitsSubmittedTwice(setup.server.ctx.db)).toBe(3);
    expect(await bank.debitStatuses(orders, call())).toEqual(first);

    for (const debit of [taken, tooMuch, unauthorised]) {
      const journal = await journaledRequests(setup.server.ctx.db, { paymentId: debit.paymentId, limit: 10 });
      expect(journal.map((r) => `${r.operation}:${r.answer}`)).toEqual(
        ['debit', 'debit', 'debit-status'].map((op) => `${op}:${first[[taken, tooMuch, unauthorised].indexOf(debit)]!.status}`),
      );
    }
  });
});

describe("a batch of a bank's answers", () => {
  it('moves only the debits still in the state they were asked in, and only their payments', async () => {
    const subscriptionId = await enabledSubscription();
    const [a, b] = [await dueDebit(subscriptionId), await dueDebit(subscriptionId)];
    const claimedA = (await changeDebit(setup.server.ctx, a, 'due', { event: 'claimed' }))!;
    const claimedB = (await changeDebit(setup.server.ctx, b, 'due', { event: 'claimed' }))!;
    // Another process applied an answer about b first.
    await changeDebit(setup.server.ctx, claimedB, 'submitting', { event: 'unanswered' });
    const settlesAt = new Date(setup.server.ctx.clock.now().getTime() + 86_400_000);
    const accepted = { status: 'accepted' as const, settlesAt };

    const applied = await applyDebitResults(setup.server.ctx, [
      { debit: claimedA, from: 'submitting', result: accepted },
      { debit: claimedB, from: 'submitting', result: accepted },
    ]);
    expect(applied).toBe(1);
    expect(await findDebitOfPayment(setup.server.ctx.db, a.paymentId)).toMatchObject({ state: 'submitted', nextCheckAt: settlesAt });
    expect(await findDebitOfPayment(setup.server.ctx.db, b.paymentId)).toMatchObject({ state: 'uncertain' });
    expect((await api.get(`/v3/payments/${a.paymentId}`)).body.status).toBe('verifying');
    expect((await api.get(`/v3/payments/${b.paymentId}`)).body.status).toBe('pending');
  });
});
