// No secret reaches the log: a `quipu serve` at trace level is taken through what handles secrets
// (API keys, the receiver secret signing v2 requests, OAuth client credentials and the tokens they
// buy, dashboard passwords right and wrong and the session cookies, a second factor's secret and
// recovery codes, the operator token right and wrong, a receiver's new secret) and every log line
// it wrote is searched for each of them. The
// banner that prints the demo account's credentials once, on purpose, is not a log line.
import { describe, expect, it } from 'vitest';
import { signature, stringToSign } from '../../src/domain/v2-signature.js';
import { call } from '../helpers/http.js';
import { FORM } from '../helpers/oauth.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { logLines, quipu as quipuCommand, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { validReceiver } from '../helpers/receivers.js';

const OPERATOR_TOKEN = 'operator-token-that-must-never-be-logged-0001';
const WRONG_OPERATOR_TOKEN = 'operator-token-that-is-wrong-and-never-logged';
const WRONG_PASSWORD = 'a-wrong-password-never-logged';
const PASSWORD = 'demo-password-never-logged';

describe('the log of a server at trace level', () => {
  const processes = withServerProcesses();

  it('holds no API key, secret, password, token or session id', async () => {
    const { database, started } = processes;
    const quipu = await serveOnFreePort(
      { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'trace', RUN_WORKER: 'true', OPERATOR_TOKEN, DEMO_PASSWORD: PASSWORD },
      started,
    );
    const banner = await quipu.waitFor(/API reference/);
    const apiKey = /api_key\s+(\S+)/.exec(banner)![1]!;
    const secret = /secret\s+(\S+)/.exec(banner)![1]!;
    const receiverId = /receiver_id\s+(\S+)/.exec(banner)![1]!;
    const email = /email\s+(\S+)/.exec(banner)![1]!;
    const base = quipu.baseUrl;
    const secrets: string[] = [apiKey, secret, PASSWORD, WRONG_PASSWORD, OPERATOR_TOKEN, WRONG_OPERATOR_TOKEN];

    // v3 with the API key, bad input included.
    expect(
      (await call(base, 'POST', '/v3/payments', { apiKey, body: { amount: 1000, currency: 'CLP', subject: 'x', notify_url: `${base}/nowhere` } })).status,
    ).toBe(200);
    expect((await call(base, 'POST', '/v3/payments', { apiKey, body: { amount: 'x' } })).status).toBe(400);
    expect((await call(base, 'GET', '/v3/banks', { apiKey: 'ffffffff-ffff-4fff-8fff-ffffffffffff' })).status).toBe(401);
    // v2 signed with the receiver secret, right and wrong.
    const url = `${base.replace('127.0.0.1', 'localhost')}/api/2.0/banks`;
    const signed = signature(secret, stringToSign('GET', url, []));
    await call(base, 'GET', '/api/2.0/banks', { headers: { authorization: `${receiverId}:${signed}` } });
    await call(base, 'GET', '/api/2.0/banks', { headers: { authorization: `${receiverId}:${'0'.repeat(64)}` } });
    // OAuth client credentials, the token they buy, its use and revocation.
    const basic = `Basic ${Buffer.from(`${receiverId}:${secret}`).toString('base64')}`;
    const token = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': FORM, authorization: basic },
      body: 'grant_type=client_credentials&scope=openid%20api',
    });
    expect(token.status).toBe(200);
    const accessToken = ((await token.json()) as { access_token: string }).access_token;
    secrets.push(accessToken, basic.slice('Basic '.length));
    expect((await call(base, 'GET', '/v3/banks', { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(200);
    await fetch(`${base}/oauth2/revoke`, { method: 'POST', headers: { 'content-type': FORM, authorization: basic }, body: `token=${accessToken}` });
    // A receiver created through the API: its new secret is answered once.
    const integrated = await call(base, 'POST', '/v3/receivers', { apiKey, body: validReceiver });
    if (integrated.status === 200) secrets.push(integrated.body.secret as string);
    // The dashboard: a wrong and a right password, and the session cookie.
    const session = new PayerSession(base);
    let form = await session.get('/dashboard/sign-in');
    await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email, password: WRONG_PASSWORD });
    form = await session.get('/dashboard/sign-in');
    expect((await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email, password: PASSWORD })).status).toBe(303);
    secrets.push(session.cookies.get('quipu_session')!);
    expect((await session.get('/dashboard/settings')).status).toBe(200);
    // A second factor: its secret and recovery codes, a wrong code and a recovery code, and the
    // halfway and full session cookies. (Six-digit codes are not looked for: any timestamp holds some.)
    const enrolled = JSON.parse(
      (await quipuCommand(['users', 'two-factor-enrol', email, '--json'], { DATABASE_URL: database.url, DATA_DIR: database.dataDir })).stdout,
    );
    secrets.push(enrolled.secret, ...enrolled.recovery_codes);
    const second = new PayerSession(base);
    form = await second.get('/dashboard/sign-in');
    expect((await second.post('/dashboard/sign-in', { _csrf: csrfOf(form), email, password: PASSWORD })).location).toBe('/dashboard/sign-in/code');
    secrets.push(second.cookies.get('quipu_session')!);
    await second.post('/dashboard/sign-in/code', { _csrf: csrfOf(form), code: '000000' });
    expect((await second.post('/dashboard/sign-in/code', { _csrf: csrfOf(form), code: enrolled.recovery_codes[0] })).location).toBe('/dashboard');
    secrets.push(second.cookies.get('quipu_session')!);
    // The operator API, right and wrong.
    for (const bearer of [OPERATOR_TOKEN, WRONG_OPERATOR_TOKEN])
      await call(base, 'GET', '/operator/v1/credits', { headers: { authorization: `Bearer ${bearer}` } });

    await expect.poll(() => logLines(quipu).filter((line) => line.msg === 'operator call').length, { timeout: 5_000 }).toBe(2);
    const lines = logLines(quipu).map((line) => JSON.stringify(line));
    expect(lines.length).toBeGreaterThan(20);
    const leaks = secrets.flatMap((value) => lines.filter((line) => line.includes(value)).map((line) => `${value.slice(0, 6)}…: ${line.slice(0, 200)}`));
    expect(leaks).toEqual([]);
  }, 90_000);
});
