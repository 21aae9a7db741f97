// `quipu scenarios run`, as a real process on the database of a running test server: it runs a
// scenario on the account named (or the only developer-mode one) and prints what it made as the
// sandbox API answers it; charge-refused's refusal is its expected answer (exit status 0); a
// production account and an unknown scenario end in exit codes and one clear line.
import { beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { quipu } from '../helpers/process.js';
import { type TestAccount, useTestServer } from '../helpers/server.js';

let production: TestAccount;
let env: Record<string, string>;

const setup = useTestServer({}, { name: 'Gym' });
beforeAll(async () => {
  production = await setup.server.account({ developer: false });
  env = { DATABASE_URL: setup.server.database.url, DATA_DIR: setup.server.database.dataDir, LOG_LEVEL: 'warn' };
});

const api = () => client(setup.server.baseUrl, setup.account.api_key);

// Each command is a process of its own: generous time for a loaded machine.
describe('quipu scenarios run', { timeout: 120_000 }, () => {
  it("runs a scenario on the only developer-mode account, or the one named, printing the API's answer with --json", async () => {
    const alone = await quipu(['scenarios', 'run', 'mandate-enabled'], env);
    expect(alone.code, alone.stderr).toBe(0);
    const [summary, subscription] = alone.stdout.trim().split('\n');
    expect(summary).toBe('mandate-enabled  ENABLED');
    const subscriptionId = subscription!.split(' ')[0]!;
    expect(subscription).toBe(`${subscriptionId}  ENABLED (enabled)`);
    expect((await api().get(`/v1/automatic-payment/subscription/${subscriptionId}`)).body.status).toBe('ENABLED');

    await setup.server.account({ name: 'Second developer' });
    const ambiguous = await quipu(['scenarios', 'run', 'transfer-pays'], env);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('name the account with --receiver <receiver_id>');

    const named = await quipu(['scenarios', 'run', 'transfer-pays', '--receiver', String(setup.account.receiver_id), '--json'], env);
    expect(named.code, named.stderr).toBe(0);
    const view = JSON.parse(named.stdout);
    expect(view).toEqual({ scenario: 'transfer-pays', outcome: 'done', payment: { payment_id: expect.any(String), status: 'done', status_detail: 'normal' } });
    expect((await api().get(`/v3/payments/${view.payment.payment_id}`)).body).toMatchObject({ status: 'done', subject: 'Scenario transfer-pays' });
  });

  it('refuses a production account, says a refused charge was the expected refusal, and names the scenarios there are', async () => {
    const refused = await quipu(['scenarios', 'run', 'transfer-pays', '--receiver', String(production.receiver_id)], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("DemoBank's scenarios run for developer-mode accounts only");
    // The refusal is what charge-refused expects: said so, with exit status 0.
    const charge = await quipu(['scenarios', 'run', 'charge-refused', '--receiver', String(setup.account.receiver_id)], env);
    expect(charge.code, charge.stderr).toBe(0);
    expect(charge.stdout).toMatch(/^charge-refused {2}refused, as the scenario expects\n {2}amount: must not exceed the subscription's max_amount.*\n$/);
    const chargeJson = await quipu(['scenarios', 'run', 'charge-refused', '--receiver', String(setup.account.receiver_id), '--json'], env);
    expect(chargeJson.code).toBe(0);
    expect(JSON.parse(chargeJson.stdout)).toEqual({
      scenario: 'charge-refused',
      outcome: 'refused',
      expected: true,
      errors: [{ field: 'amount', message: expect.stringContaining("must not exceed the subscription's max_amount") }],
    });
    const unknown = await quipu(['scenarios', 'run', 'charge-explodes', '--receiver', String(setup.account.receiver_id)], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('charge-settles');
  });
});
