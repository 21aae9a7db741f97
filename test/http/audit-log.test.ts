// The audit log, as an operator and an account's owner read it: sign-ins right and wrong, a
// dashboard refund and a role's refused one, the API's refunds and deletes, and operator calls each
// leave one record naming who, what, on what, from where and how it ended; appends from many
// requests at once stay one chain; the owner sees their account's records (and only theirs) in the
// dashboard and as JSON lines, a viewer does not; an edited or removed record is found.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import { audit, verifyAudit } from '../../src/app/audit.js';
import type { AuditRecord } from '../../src/domain/audit.js';
import { client } from '../helpers/http.js';
import { payByTransfer } from '../helpers/payments.js';
import { csrfOf, type PageResponse, PayerSession } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, type TestAccount, useTestServer } from '../helpers/server.js';

const OPERATOR_TOKEN = 'o'.repeat(40);

let other: TestAccount;
const users = {} as Record<'owner' | 'viewer', DashboardCredentials>;

const setup = useTestServer({ OPERATOR_TOKEN }, { features: { refunds: true } });
beforeAll(async () => {
  other = await setup.server.account();
  users.owner = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@audit.test' });
  users.viewer = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'viewer@audit.test', role: 'viewer' });
});

const api = () => client(setup.server.baseUrl, setup.account.api_key);

/**
 * The records written since `after` that `mine` picks, oldest first. Records are written once the
 * answer has gone, so they are polled for, and an earlier test's may land among them: each test
 * picks its own.
 */
async function recordsAfter(after: number, count: number, mine: (record: AuditRecord) => boolean = () => true): Promise<AuditRecord[]> {
  const read = async () =>
    (await setup.server.ctx.db.selectFrom('audit_log').selectAll().where('seq', '>', after).orderBy('seq').execute())
      .map(
        (r) =>
          ({
            seq: Number(r.seq),
            actorKind: r.actor_kind,
            actor: r.actor,
            receiverId: r.receiver_id === null ? null : Number(r.receiver_id),
            action: r.action,
            target: r.target,
            outcome: r.outcome,
            address: r.address,
          }) as AuditRecord,
      )
      .filter(mine);
  await expect.poll(async () => (await read()).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(count);
  return read();
}
const lastSeq = async () =>
  Number(
    (
      await setup.server.ctx.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .executeTakeFirst()
    )?.seq ?? 0,
  );

async function signIn(credentials: { email: string; password: string }): Promise<{ session: PayerSession; answer: PageResponse }> {
  const session = new PayerSession(setup.server.baseUrl);
  const answer = await session.post('/dashboard/sign-in', {
    _csrf: csrfOf(await session.get('/dashboard/sign-in')),
    email: credentials.email,
    password: credentials.password,
  });
  return { session, answer };
}

async function paidPayment(): Promise<string> {
  const created = await api().post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Audited' });
  await payByTransfer(setup.server.ctx, setup.account.merchant, created.body.payment_id);
  return created.body.payment_id as string;
}

describe('what is recorded', () => {
  it('sign-ins, right and wrong, with the account of the user and the address', async () => {
    const after = await lastSeq();
    expect((await signIn({ email: users.owner.email, password: 'not-it' })).answer.status).toBe(401);
    expect((await signIn(users.owner)).answer.status).toBe(303);
    expect((await recordsAfter(after, 2, (r) => r.action === 'sign-in')).map(({ seq: _seq, ...r }) => r)).toEqual([
      {
        actorKind: 'user',
        actor: 'owner@audit.test',
        receiverId: setup.account.receiver_id,
        action: 'sign-in',
        target: null,
        outcome: 'refused',
        address: '127.0.0.1',
      },
      {
        actorKind: 'user',
        actor: 'owner@audit.test',
        receiverId: setup.account.receiver_id,
        action: 'sign-in',
        target: null,
        outcome: 'ok',
        address: '127.0.0.1',
      },
    ]);
  });

  it("a dashboard refund by the owner, and a viewer's refused one", async () => {
    const id = await paidPayment();
    const owner = (await signIn(users.owner)).session;
    const viewer = (await signIn(users.viewer)).session;
    const after = await lastSeq();
    const page = `/dashboard/payments/${id}`;
    expect((await viewer.post(`${page}/refund`, { _csrf: csrfOf(await viewer.get(page)), amount: '100' })).status).toBe(403);
    expect((await owner.post(`${page}/refund`, { _csrf: csrfOf(await owner.get(page)), amount: '100' })).status).toBe(303);
    const records = await recordsAfter(after, 2, (r) => r.action === 'payment.refund');
    expect(records).toContainEqual(
      expect.objectContaining({ actorKind: 'user', actor: 'viewer@audit.test', action: 'payment.refund', target: `${page}/refund`, outcome: 'refused' }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        actorKind: 'user',
        actor: 'owner@audit.test',
        receiverId: setup.account.receiver_id,
        action: 'payment.refund',
        target: `${page}/refund`,
        outcome: 'ok',
      }),
    );
  });

  it("the API's refunds and deletes, by the account whose key asked; a read is not recorded", async () => {
    const id = await paidPayment();
    const pending = (await api().post('/v3/payments', { amount: 500, currency: 'CLP', subject: 'To delete' })).body.payment_id as string;
    const after = await lastSeq();
    expect((await api().post(`/v3/payments/${id}/refunds`, { amount: 100 })).status).toBe(200);
    expect((await api().delete(`/v3/payments/${pending}`)).status).toBe(200);
    expect((await api().delete('/v3/payments/zzzzzzzzzzzz')).status).toBe(404);
    expect((await api().get(`/v3/payments/${id}`)).status).toBe(200);
    const records = await recordsAfter(after, 3, (r) => r.actorKind === 'api');
    expect(records.map((r) => [r.actorKind, r.actor, r.action, r.target, r.outcome])).toEqual([
      ['api', String(setup.account.receiver_id), 'payment.refund', `/v3/payments/${id}/refunds`, 'ok'],
      ['api', String(setup.account.receiver_id), 'payment.delete', `/v3/payments/${pending}`, 'ok'],
      ['api', String(setup.account.receiver_id), 'payment.delete', '/v3/payments/zzzzzzzzzzzz', 'refused'],
    ]);
  });

  it('operator calls, right token or wrong', async () => {
    const after = await lastSeq();
    for (const token of [OPERATOR_TOKEN, 'w'.repeat(40)])
      await fetch(`${setup.server.baseUrl}/operator/v1/credits`, { headers: { authorization: `Bearer ${token}` } });
    expect((await recordsAfter(after, 2, (r) => r.actorKind === 'operator')).map((r) => [r.actorKind, r.action, r.target, r.outcome])).toEqual([
      ['operator', 'operator.call', 'GET /operator/v1/credits', 'ok'],
      ['operator', 'operator.call', 'GET /operator/v1/credits', 'refused'],
    ]);
  });
});

describe('the chain', () => {
  it('stays one chain when many requests append at once', async () => {
    const after = await lastSeq();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        audit(setup.server.ctx, {
          actorKind: 'cli',
          actor: 'test',
          receiverId: null,
          action: 'cli.command',
          target: `parallel ${i}`,
          outcome: 'ok',
          address: null,
        }),
      ),
    );
    const records = await recordsAfter(after, 40, (r) => r.target?.startsWith('parallel ') === true);
    expect(new Set(records.map((r) => r.seq)).size).toBe(40);
    const verified = await verifyAudit(setup.server.ctx);
    expect(verified.fault).toBeUndefined();
    expect(verified.records).toBeGreaterThanOrEqual(after + 40);
  });
});

describe('the owner reads it', () => {
  it("in the dashboard and as JSON lines, their account's records only; a viewer may not", async () => {
    await signIn(users.owner);
    const ownerSession = (await signIn(users.owner)).session;
    const page = await ownerSession.get('/dashboard/audit');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<code>sign-in</code>');
    expect(page.html).toContain('owner@audit.test');
    const exported = await ownerSession.get('/dashboard/audit/export');
    expect(exported.headers.get('content-type')).toContain('application/jsonl');
    const lines = exported.html
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditRecord);
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.every((r) => r.receiverId === setup.account.receiver_id)).toBe(true);
    expect(lines.every((r, i) => i === 0 || r.seq > lines[i - 1]!.seq)).toBe(true);

    const viewerSession = (await signIn(users.viewer)).session;
    expect((await viewerSession.get('/dashboard/audit')).status).toBe(403);
    expect((await viewerSession.get('/dashboard/audit/export')).status).toBe(403);
    expect((await viewerSession.get('/dashboard')).html).not.toContain('href="/dashboard/audit"');

    const stranger = await addDashboardUser(setup.server.ctx, other.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@other.test' });
    const strangerPage = await (await signIn(stranger)).session.get('/dashboard/audit');
    expect(strangerPage.html).not.toContain('owner@audit.test');
  });
});

describe('tampering', () => {
  it('an edited record, and a removed one, are found', async () => {
    const first = (await setup.server.ctx.db.selectFrom('audit_log').select('seq').orderBy('seq').limit(3).execute()).map((r) => Number(r.seq));
    await setup.server.ctx.db.updateTable('audit_log').set({ outcome: 'ok' }).where('seq', '=', first[1]!).where('outcome', '=', 'refused').execute();
    await setup.server.ctx.db.updateTable('audit_log').set({ actor: 'someone-else' }).where('seq', '=', first[1]!).execute();
    expect((await verifyAudit(setup.server.ctx)).fault).toEqual({ seq: first[1], problem: 'edited' });
    await setup.server.ctx.db.deleteFrom('audit_log').where('seq', '=', first[1]!).execute();
    expect((await verifyAudit(setup.server.ctx)).fault).toEqual({ seq: first[2], problem: 'broken before it' });
  });
});
