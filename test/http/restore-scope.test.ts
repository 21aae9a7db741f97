// What a snapshot restore leaves as it is (docs/sandbox-snapshots.md, What a snapshot holds): an
// account's credentials, tokens, dashboard users, their passwords, second factors and sessions. A
// key rotated away, a password changed, a session ended or a token revoked after the snapshot stay
// so after a restore, while the account's state (here a payment made since) goes back.
import { describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { enrolTwoFactor } from '../../src/app/two-factor-enrolment.js';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { PASSWORD_PATH, SETTINGS_PATH } from '../../src/http/dashboard/settings.js';
import { dashboardSession, postForm } from '../helpers/dashboard-session.js';
import { call, client } from '../helpers/http.js';
import { basicAuth, clientCredentialsToken, formPost } from '../helpers/oauth.js';
import { CHOSEN_PASSWORD, useTestServer } from '../helpers/server.js';

const setup = useTestServer();
const NEW_PASSWORD = 'Birch-Velvet-Heron-2093';

const sandbox = (method: 'POST' | 'DELETE', path: string, body?: unknown) => call(setup.server.baseUrl, method, path, { body });
const bearer = (token: string) => call(setup.server.baseUrl, 'GET', '/v3/banks', { headers: { authorization: `Bearer ${token}` } });

describe('a snapshot restore', () => {
  it('leaves credentials, tokens, passwords, second factors and sessions as they are, and brings the state back', async () => {
    const created = await sandbox('POST', '/sandbox/accounts', { name: 'Scope' });
    expect(created.status).toBe(200);
    const account = created.body as { receiver_id: number; secret: string; api_key: string };
    const id = account.receiver_id;
    const email = `scope-${id}@restore.test`;
    await addDashboardUser(setup.server.ctx, id, { email, password: CHOSEN_PASSWORD });
    const signedOut = await dashboardSession(setup.server.baseUrl, { email, password: CHOSEN_PASSWORD });
    const revokedToken = await clientCredentialsToken(setup.server, account as never);

    const snapshot = (await sandbox('POST', `/sandbox/accounts/${id}/snapshots`)).body;
    expect(snapshot.rows).toBeGreaterThan(0);

    // After the snapshot: a payment, a key rotated away without grace, a password changed, a session
    // ended, a second factor enrolled, a token revoked and another one given.
    const since = (await client(setup.server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Since' })).body
      .payment_id as string;
    const { apiKey } = await updateMerchant(setup.server.ctx, id, { rotateApiKey: true });
    expect((await postForm(signedOut, '/dashboard', '/dashboard/sign-out')).status).toBe(303);
    const changer = await dashboardSession(setup.server.baseUrl, { email, password: CHOSEN_PASSWORD });
    expect((await postForm(changer, SETTINGS_PATH, PASSWORD_PATH, { current: CHOSEN_PASSWORD, next: NEW_PASSWORD })).status).toBe(303);
    const enrolment = await enrolTwoFactor(setup.server.ctx, email);
    const revoked = await formPost(setup.server.baseUrl, '/oauth2/revoke', { token: revokedToken }, basicAuth(account));
    expect(revoked.status).toBe(200);
    const givenSince = await clientCredentialsToken(setup.server, account as never);

    const restored = await sandbox('POST', `/sandbox/accounts/${id}/snapshots/${snapshot.snapshot_id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);

    // The state is the snapshot's: the payment made since is gone.
    expect((await client(setup.server.baseUrl, apiKey!).get(`/v3/payments/${since}`)).status).toBe(404);
    // The key rotated away stays away; the one given since works.
    expect((await client(setup.server.baseUrl, account.api_key).get('/v3/banks')).status).toBe(401);
    expect((await client(setup.server.baseUrl, apiKey!).get('/v3/banks')).status).toBe(200);
    // The password before the change is refused; the new one is asked for its second factor.
    await expect(dashboardSession(setup.server.baseUrl, { email, password: CHOSEN_PASSWORD })).rejects.toThrow(/answered/);
    await dashboardSession(setup.server.baseUrl, { email, password: NEW_PASSWORD });
    const user = await setup.server.ctx.db
      .selectFrom('dashboard_users')
      .select(['user_id', 'totp_secret_enc'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(user.totp_secret_enc).not.toBeNull();
    expect(enrolment.recovery_codes).toHaveLength(10);
    expect(await setup.server.ctx.db.selectFrom('dashboard_recovery_codes').select('code_hash').where('user_id', '=', user.user_id).execute()).toHaveLength(10);
    // The ended session stays ended.
    expect((await signedOut.get('/dashboard')).status).toBe(303);
    // The revoked token stays revoked; the one given since goes on working.
    expect((await bearer(revokedToken)).status).toBe(401);
    expect((await bearer(givenSince)).status).toBe(200);
  });
});
