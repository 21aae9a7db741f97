// `quipu subscriptions` and the automatic payment commands of `quipu demobank`, as real processes
// on the database of a running test server: list and show subscriptions (state, the mandate's
// history with origin and reason, charges), DemoBank's mandates, its decisions on mandates and
// charges; refused where SANDBOX is off.
import { beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { quipu } from '../helpers/process.js';
import { useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

let env: Record<string, string>;

const setup = useTestServer({}, { name: 'Gym' });
beforeAll(() => {
  env = { DATABASE_URL: setup.server.database.url, DATA_DIR: setup.server.database.dataDir, LOG_LEVEL: 'warn' };
});

const api = () => client(setup.server.baseUrl, setup.account.api_key);
const statusOf = async (id: string) => (await api().get(`/v1/automatic-payment/subscription/${id}`)).body.status as string;

async function signedSubscription(rut: string, fields: Record<string, unknown> = {}): Promise<string> {
  const id = await createSubscriptionOver(api(), fields);
  await signAtDemoBank(setup.server.ctx, id, rut);
  return id;
}

async function chargeOf(subscriptionId: string): Promise<string> {
  const created = await api().post('/v1/automatic-payment/charge-intent', newCharge(subscriptionId));
  expect(created.status).toBe(200);
  return created.body.payment_id as string;
}

// Each command is a process of its own: generous time for a loaded machine.
const PROCESSES = { timeout: 120_000 };

describe('quipu subscriptions', PROCESSES, () => {
  it('lists subscriptions and shows one with its history and charges', async () => {
    const id = await signedSubscription('11.111.111-1', { service_reference: 'Plan A' });
    const unsigned = await createSubscriptionOver(api());
    const paymentId = await chargeOf(id);

    const listed = await quipu(['subscriptions', 'list', '--receiver', String(setup.account.receiver_id), '--json'], env);
    expect(listed.code).toBe(0);
    const views = JSON.parse(listed.stdout);
    expect(views.map((v: { subscription_id: string }) => v.subscription_id)).toEqual(expect.arrayContaining([id, unsigned]));
    expect(views.find((v: { subscription_id: string }) => v.subscription_id === unsigned)).toMatchObject({
      status: 'DISABLED',
      state: 'created',
      customer_bank_code: 'no-bank',
    });

    const shown = await quipu(['subscriptions', 'show', id, '--json'], env);
    expect(shown.code).toBe(0);
    const detail = JSON.parse(shown.stdout);
    expect(detail).toMatchObject({
      subscription_id: id,
      receiver_id: setup.account.receiver_id,
      status: 'ENABLED',
      state: 'enabled',
      customer_bank_code: 'Bawdf',
      service_reference: 'Plan A',
      max_amount: 50000,
    });
    expect(detail.history.map((c: { from: string; to: string; origin: string }) => [c.from, c.to, c.origin])).toEqual([
      ['created', 'signed', 'payer'],
      ['signed', 'enabled', 'bank'],
    ]);
    expect(detail.history[0].reason).toContain('11.111.111-1');
    expect(detail.charges).toEqual([expect.objectContaining({ payment_id: paymentId, amount: 10000, currency: 'CLP', debit_state: 'due' })]);

    const human = await quipu(['subscriptions', 'show', id], env);
    expect(human.stdout).toContain('created → signed');
    expect(human.stdout).toMatch(/\nhistory\nCHANGED +CHANGE +EVENT +BY +REASON\n/);
    expect(human.stdout).toMatch(new RegExp(`\\ncharges\\nPAYMENT +AMOUNT +DEBIT +FAILURE\\n${paymentId} +10000 CLP +due +-\\n`));

    const missing = await quipu(['subscriptions', 'show', '6b0e1c1e-0000-4000-8000-000000000000'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Subscription not found');
  });
});

describe('quipu demobank mandates', PROCESSES, () => {
  it("lists DemoBank's mandates, all or one payer's", async () => {
    const mine = await signedSubscription('12.345.678-5');
    const theirs = await signedSubscription('11.111.111-1');
    const payer = await quipu(['demobank', 'mandates', 'list', '--rut', '12345678-5', '--json'], env);
    expect(payer.code).toBe(0);
    const views = JSON.parse(payer.stdout);
    expect(views.map((v: { subscription_id: string }) => v.subscription_id)).toContain(mine);
    expect(views.every((v: { personal_identifier: string }) => v.personal_identifier === '12.345.678-5')).toBe(true);
    expect(views.find((v: { subscription_id: string }) => v.subscription_id === mine)).toMatchObject({
      creditor: 'Gym',
      state: 'active',
      max_amount: 50000,
      currency: 'CLP',
    });
    const all = JSON.parse((await quipu(['demobank', 'mandates', 'list', '--json'], env)).stdout);
    expect(all.map((v: { subscription_id: string }) => v.subscription_id)).toEqual(expect.arrayContaining([mine, theirs]));
    const bad = await quipu(['demobank', 'mandates', 'list', '--rut', '12.345.678-9'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('is not a valid RUT');
  });

  it('approves and rejects a mandate waiting for the bank, and revokes one, writing the signing notifications', async () => {
    const approved = await signedSubscription('33.333.333-3');
    const rejected = await signedSubscription('33.333.333-3');
    expect(await statusOf(approved)).toBe('SIGNED');

    const approve = await quipu(['demobank', 'mandates', 'approve', approved], env);
    expect(approve.code).toBe(0);
    expect(approve.stdout).toContain(`${approved}  ENABLED (enabled)`);
    expect(await statusOf(approved)).toBe('ENABLED');
    const reject = await quipu(['demobank', 'mandates', 'reject', rejected], env);
    expect(reject.stdout).toContain(`${rejected}  DISABLED (bank-rejected)`);

    const revoke = await quipu(['demobank', 'mandates', 'revoke', approved], env);
    expect(revoke.stdout).toContain(`${approved}  DISABLED (revoked-by-payer)`);
    expect(await statusOf(approved)).toBe('DISABLED');
    const again = await quipu(['demobank', 'mandates', 'revoke', approved], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('The mandate is not in force: there is nothing to revoke');

    const bodies = await setup.server.ctx.db
      .selectFrom('messages')
      .select(['subject_id', 'body'])
      .where('kind', '=', 'subscription.signing')
      .where('subject_id', 'in', [approved, rejected])
      .orderBy('created_at')
      .execute();
    expect(bodies.map((r) => [r.subject_id, JSON.parse(r.body).status])).toEqual([
      [approved, 'enabled'],
      [rejected, 'disabled'],
      [approved, 'disabled'],
    ]);
  });
});

describe('quipu demobank charges', PROCESSES, () => {
  it('settles a charge (done) and fails another (pending, error callback written)', async () => {
    const id = await signedSubscription('11.111.111-1');
    const settled = await chargeOf(id);
    const failed = await chargeOf(id);
    const settle = await quipu(['demobank', 'charges', 'settle', settled], env);
    expect(settle.code).toBe(0);
    expect(settle.stdout).toContain(`${settled}  done/normal`);
    expect((await api().get(`/v3/payments/${settled}`)).body.status).toBe('done');

    const fail = await quipu(['demobank', 'charges', 'fail', failed], env);
    expect(fail.stdout).toContain(`${failed}  pending/pending`);
    const errors = await setup.server.ctx.db
      .selectFrom('messages')
      .select('body')
      .where('kind', '=', 'payment.charge.error')
      .where('subject_id', '=', failed)
      .execute();
    expect(errors.map((r) => JSON.parse(r.body))).toEqual([expect.objectContaining({ subscription_id: id, transaction_id: 'INV-1' })]);

    const twice = await quipu(['demobank', 'charges', 'settle', settled], env);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("The charge's debit is settled");
    const plain = await api().post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Not a charge' });
    const notCharge = await quipu(['demobank', 'charges', 'settle', plain.body.payment_id], env);
    expect(notCharge.code).toBe(2);
    expect(notCharge.stderr).toContain('Charge not found');
  });

  it('refuses every DemoBank decision where SANDBOX is off', async () => {
    const id = await signedSubscription('11.111.111-1');
    const paymentId = await chargeOf(id);
    for (const args of [
      ['demobank', 'charges', 'settle', paymentId],
      ['demobank', 'mandates', 'revoke', id],
    ]) {
      const refused = await quipu(args, { ...env, SANDBOX: 'false' });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('DemoBank takes decisions from developers only where SANDBOX is on');
    }
    expect(await statusOf(id)).toBe('ENABLED');
    expect((await api().get(`/v3/payments/${paymentId}`)).body.status).toBe('pending');
  });
});
