// Every table of THE table of an account's tables (store/account-records.ts) filled through the
// real paths (the API, the payer's and the mandate's steps at DemoBank, the OAuth flow, the
// dashboard, a bank statement, a clock move, the jobs and the delivery worker), then restored from a
// snapshot taken before the clock move and deleted: the documented CI pattern, with the funds
// delivery a clock move makes, which a restore or a deletion once tripped on (a foreign key). Then
// the same pattern run by many suites at once on one server.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { enrolTwoFactor } from '../../src/app/two-factor-enrolment.js';
import { payWithDemoBank } from '../../src/app/pay-with-demobank.js';
import { recordCredits } from '../../src/app/record-credits.js';
import { ACCOUNT_RECORDS, ownedBy } from '../../src/store/account-records.js';
import { dashboardSession } from '../helpers/dashboard-session.js';
import { call, client } from '../helpers/http.js';
import { runInBackground } from '../helpers/jobs.js';
import { eventually, startReceiver } from '../helpers/notification-receiver.js';
import { authorizeParams, clientCredentialsToken, PageClient, registerRedirectUris } from '../helpers/oauth.js';
import { issueOperation, runThroughPages } from '../helpers/operations.js';
import { useTestServer } from '../helpers/server.js';

const setup = useTestServer();
const CALLBACK = 'https://merchant.example/callback';
const NO_PAYER = {
  payerBankId: null,
  payerName: null,
  payerEmail: null,
  payerPersonalIdentifier: null,
  payerAccountNumber: null,
  paymentMethod: null,
  fundsSource: null,
};

interface SandboxAccount {
  receiver_id: number;
  secret: string;
  api_key: string;
  dashboard: { email: string; password: string };
  fixtures: Record<string, { ref: string; payment_id?: string }[]>;
}

const sandbox = (method: 'POST' | 'DELETE', path: string, body?: unknown) => call(setup.server.baseUrl, method, path, { body });

/** How many rows each table of ACCOUNT_RECORDS holds of the account. */
async function rowCounts(receiverId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const records of ACCOUNT_RECORDS) {
    const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(records.table)} where ${ownedBy(records, receiverId)}`.execute(
      setup.server.ctx.db,
    );
    counts[records.table] = Number(rows[0]!.n);
  }
  return counts;
}

/** The account's payments and the ids of their funds deliveries, as the store holds them. */
const deliveries = (receiverId: number) =>
  setup.server.ctx.db
    .selectFrom('fund_deliveries')
    .select('delivery_id')
    .where('receiver_id', '=', receiverId)
    .execute()
    .then((rows) => rows.map((row) => row.delivery_id));

describe("an account's every table, restored and deleted", () => {
  it('fills every table, restores a snapshot from before the funds delivery, restores the later one, and deletes it all', async () => {
    const receiver = await startReceiver();
    // The jobs and the worker run while the account is filled and after the clock moves, and are
    // stopped while a snapshot is taken and its rows counted.
    let background = runInBackground(setup.server);
    try {
      const created = await sandbox('POST', '/sandbox/accounts', {
        notify_url: receiver.url,
        dashboard: true,
        refunds: true,
        fixtures: {
          payments: [
            { ref: 'paid', status: 'done' },
            { ref: 'refunded', status: 'reversed' },
            { ref: 'open', status: 'pending' },
          ],
          subscriptions: [{ ref: 'gym', status: 'enabled' }],
          charges: [{ ref: 'november', subscription: 'gym', status: 'paid' }],
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const account = created.body as SandboxAccount;
      const id = account.receiver_id;
      const api = client(setup.server.baseUrl, account.api_key);

      // What fixtures do not make: an idempotent create, a payment paid by a credit on a bank
      // statement, an operation run at DemoBank, OAuth 2.0 redirect URIs, a consent, an
      // authorization and tokens, a dashboard session and a second factor's recovery codes.
      const idempotent = await api.post('/v3/payments', { amount: 2500, currency: 'CLP', subject: 'Once' }, { 'idempotency-key': 'fill-1' });
      expect(idempotent.status).toBe(200);
      const byCredit = (await api.post('/v3/payments', { amount: 3100, currency: 'CLP', subject: 'By transfer' })).body.payment_id as string;
      const row = await setup.server.ctx.db.selectFrom('merchants').select('collect_accounts').where('receiver_id', '=', id).executeTakeFirstOrThrow();
      const statement = await recordCredits(
        setup.server.ctx,
        [
          {
            ...NO_PAYER,
            bankReference: `fill-${id}`,
            account: (JSON.parse(row.collect_accounts) as string[])[0]!,
            amount: 3100 * 10_000,
            currency: 'CLP',
            reference: byCredit,
            creditedAt: setup.server.ctx.clock.now(),
          },
        ],
        'statement',
      );
      expect(statement, JSON.stringify(statement)).toMatchObject([{ status: 'matched', paymentId: byCredit }]);
      const operation = await issueOperation(setup.server.baseUrl, account.api_key);
      expect((await runThroughPages(setup.server.baseUrl, operation.id)).status).toBeLessThan(400);
      const merchant = { receiver_id: id, secret: account.secret, api_key: account.api_key } as never;
      await registerRedirectUris(setup.server, merchant, [CALLBACK]);
      expect((await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(merchant, CALLBACK))).status).toBe(303);
      await clientCredentialsToken(setup.server, merchant);
      // Enrolment ends the user's sessions: the session is the one signed in after it.
      await enrolTwoFactor(setup.server.ctx, account.dashboard.email);
      await dashboardSession(setup.server.baseUrl, account.dashboard);
      const toPay = (await api.post('/v3/payments', { amount: 1700, currency: 'CLP', subject: 'Paid late' })).body.payment_id as string;
      expect((await payWithDemoBank(setup.server.ctx, toPay, 'pay')).status).toBe('done');

      await receiver.waitFor((requests) => requests.some((r) => r.body.includes(toPay)));
      await background.stop();
      const taken = await sandbox('POST', `/sandbox/accounts/${id}/snapshots`);
      expect(taken.status).toBe(200);
      const beforeMove = await rowCounts(id);
      expect(beforeMove.fund_deliveries).toBe(0);

      // Two days on: the paid payments' funds are delivered, reminders and checks fall due.
      background = runInBackground(setup.server);
      expect((await api.post('/sandbox/clock', { advance: '2d' })).status).toBe(200);
      await eventually(
        () => deliveries(id),
        (found) => found.length > 0,
      );
      await eventually(
        () => rowCounts(id),
        (counts) => Object.values(counts).every((n) => n > 0),
      );
      await background.stop();
      const filled = await rowCounts(id);
      for (const [table, n] of Object.entries(filled)) expect(n, table).toBeGreaterThan(0);
      const later = await sandbox('POST', `/sandbox/accounts/${id}/snapshots`);
      expect(later.status).toBe(200);

      const restored = await sandbox('POST', `/sandbox/accounts/${id}/snapshots/${taken.body.snapshot_id}/restore`);
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      const afterRestore = await rowCounts(id);
      // The state as it was before the clock moved; what a restore keeps as it is.
      for (const records of ACCOUNT_RECORDS)
        expect(afterRestore[records.table], records.table).toBe(records.kept ? filled[records.table] : beforeMove[records.table]);
      expect(await deliveries(id)).toEqual([]);

      const again = await sandbox('POST', `/sandbox/accounts/${id}/snapshots/${later.body.snapshot_id}/restore`);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      for (const records of ACCOUNT_RECORDS.filter((r) => !r.kept)) expect((await rowCounts(id))[records.table], records.table).toBe(filled[records.table]);

      expect((await sandbox('DELETE', `/sandbox/accounts/${id}`)).status).toBe(204);
      expect(Object.values(await rowCounts(id)).every((n) => n === 0)).toBe(true);
      expect(await setup.server.ctx.db.selectFrom('sandbox_snapshots').select('snapshot_id').where('receiver_id', '=', id).execute()).toEqual([]);
    } finally {
      await background.stop();
      await receiver.close();
    }
  });

  it('takes the CI pattern from many suites at once: create, pay, notify, two days on, restore, delete', async () => {
    const receiver = await startReceiver();
    const background = runInBackground(setup.server);
    try {
      const suite = async (n: number) => {
        const created = await sandbox('POST', '/sandbox/accounts', { notify_url: receiver.url, fixtures: { payments: [{ ref: 'paid', status: 'done' }] } });
        expect(created.status).toBe(200);
        const account = created.body as SandboxAccount;
        const api = client(setup.server.baseUrl, account.api_key);
        const paid = account.fixtures.payments![0]!.payment_id!;
        await receiver.waitFor((requests) => requests.some((r) => r.body.includes(paid)));
        const snapshot = (await sandbox('POST', `/sandbox/accounts/${account.receiver_id}/snapshots`)).body;
        expect((await api.post('/sandbox/clock', { advance: '2d' })).status).toBe(200);
        await eventually(
          () => deliveries(account.receiver_id),
          (found) => found.length > 0,
        );
        const restored = await sandbox('POST', `/sandbox/accounts/${account.receiver_id}/snapshots/${snapshot.snapshot_id}/restore`);
        expect(restored.status, `suite ${n}: ${JSON.stringify(restored.body)}`).toBe(200);
        expect((await api.get(`/v3/payments/${paid}`)).body.status).toBe('done');
        expect((await sandbox('DELETE', `/sandbox/accounts/${account.receiver_id}`)).status, `suite ${n}`).toBe(204);
      };
      await Promise.all(Array.from({ length: 16 }, (_, n) => suite(n)));
    } finally {
      await background.stop();
      await receiver.close();
    }
  });
});
