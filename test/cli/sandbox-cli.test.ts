// `quipu sandbox create`, as a real process on the database of a running test server: it prints the
// credentials of a new developer-mode account (and its dashboard sign-in, and its fixtures' ids) as
// POST /sandbox/accounts answers them, and the server then serves that account and its fixtures; a
// bad fixtures file ends in exit code 2, its problem named by its path, and no account.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { quipu } from '../helpers/process.js';
import { useTestServer } from '../helpers/server.js';

let env: Record<string, string>;
let dir: string;

const setup = useTestServer();
beforeAll(async () => {
  env = { DATABASE_URL: setup.server.database.url, DATA_DIR: setup.server.database.dataDir, LOG_LEVEL: 'warn' };
  dir = await mkdtemp(path.join(tmpdir(), 'quipu-fixtures-'));
});

async function fixturesFile(name: string, fixtures: unknown): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, JSON.stringify(fixtures));
  return file;
}

const accountCount = async () =>
  Number(
    (
      await setup.server.ctx.db
        .selectFrom('merchants')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

// Each command is a process of its own: generous time for a loaded machine.
describe('quipu sandbox create', { timeout: 120_000 }, () => {
  it('creates an account with its fixtures and dashboard owner, printed as JSON, that the server then serves', async () => {
    const file = await fixturesFile('fixtures.json', {
      payments: [
        { ref: 'paid', status: 'done', amount: 2000 },
        { ref: 'open', status: 'pending' },
      ],
      subscriptions: [{ ref: 'gym', status: 'enabled' }],
      charges: [{ ref: 'first', subscription: 'gym', status: 'paid' }],
    });
    const created = await quipu(['sandbox', 'create', '--fixtures', file, '--dashboard', '--name', 'CI suite'], env);
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout);
    expect(account).toMatchObject({ receiver_id: expect.any(Number), api_key: expect.any(String), secret: expect.any(String) });
    expect(account.fixtures.payments.map((p: { ref: string; status: string }) => [p.ref, p.status])).toEqual([
      ['paid', 'done'],
      ['open', 'pending'],
    ]);

    const api = client(setup.server.baseUrl, account.api_key);
    expect((await api.get(`/v3/payments/${account.fixtures.payments[0].payment_id}`)).body).toMatchObject({ status: 'done', amount: 2000 });
    expect((await api.get(`/v1/automatic-payment/subscription/${account.fixtures.subscriptions[0].subscription_id}`)).body.status).toBe('ENABLED');
    expect((await api.get(`/v3/payments/${account.fixtures.charges[0].payment_id}`)).body.status).toBe('done');
    expect((await api.get('/sandbox/clock')).body.own).toBe(false);
    // The dashboard owner signs in with what was printed.
    const session = new PayerSession(setup.server.baseUrl);
    const form = await session.get('/dashboard/sign-in');
    const signIn = await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), ...account.dashboard });
    expect(signIn.status).toBe(303);
  });

  it('refuses a bad fixtures file, naming the path of its problem, and creates no account', async () => {
    const before = await accountCount();
    const badState = await quipu(['sandbox', 'create', '--fixtures', await fixturesFile('bad.json', { payments: [{ ref: 'a', status: 'paid' }] })], env);
    expect(badState.code).toBe(2);
    expect(badState.stderr).toContain('fixtures.payments.0.status: must be one of pending, verifying, done, reversed, expired');
    const badCharge = await quipu(
      [
        'sandbox',
        'create',
        '--fixtures',
        await fixturesFile('charge.json', {
          subscriptions: [{ ref: 'gym', status: 'enabled', max_amount: 10 }],
          charges: [{ ref: 'big', subscription: 'gym', status: 'due', amount: 11 }],
        }),
      ],
      env,
    );
    expect(badCharge.code).toBe(2);
    expect(badCharge.stderr).toContain('fixtures.charges.0.amount');
    const unreadable = await quipu(['sandbox', 'create', '--fixtures', path.join(dir, 'missing.json')], env);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('missing.json cannot be read as JSON');
    expect(await accountCount()).toBe(before);
  });
});
