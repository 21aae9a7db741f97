// The mail server signed in to with a short-lived OAuth 2.0 token (ASVS 13.2.1), as Google
// Workspace and Microsoft 365 take it (XOAUTH2): SMTP_URL names the user alone, and the token is
// the file SMTP_OAUTH2_TOKEN_FILE names, which the platform refreshes. The file is read again before
// each email: a mail server that takes only the current token stands for the refresh, an email
// before it signs in with the first token, one after it with the second, over a new pool that
// replaces the first. A file that cannot be read, or is empty, fails the email's attempt with an
// error naming the file; no token is ever logged.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SigningInMailServer, startEmailingServer, startSigningInMailServer } from '../helpers/mail-server.js';
import { eventually } from '../helpers/notification-receiver.js';

const USER = 'quipu@tienda.example';
const TOKEN_A = 'ya29.a0-first-access-token-4f1c9e';
const TOKEN_B = 'ya29.a0-second-access-token-8b2d7a';
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-smtp-oauth2-'));
const file = path.join(folder, 'smtp-oauth2-token');
const renderToken = (token: string) => fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });

/** The token the server takes now, and every token an AUTH XOAUTH2 was given, in order. */
let current = TOKEN_A;
const signIns: string[] = [];
let mailServer: SigningInMailServer;

/** Every line the server's worker logs, at every level. */
const logged: string[] = [];
let emailing: Awaited<ReturnType<typeof startEmailingServer>>;

beforeAll(async () => {
  mailServer = await startSigningInMailServer(
    (auth, _session, callback) => {
      signIns.push(auth.accessToken ?? '');
      if (auth.method === 'XOAUTH2' && auth.username === USER && auth.accessToken === current) return callback(null, { user: USER });
      // What Gmail answers a token it does not take: the client is told to get another.
      return callback(null, { data: { status: '401', schemes: 'bearer', scope: 'https://mail.google.com/' } });
    },
    ['XOAUTH2'],
  );
  renderToken(TOKEN_A);
  emailing = await startEmailingServer(
    { SMTP_URL: `smtp://${encodeURIComponent(USER)}@127.0.0.1:${mailServer.port}`, SMTP_OAUTH2_TOKEN_FILE: file },
    pino({ level: 'trace' }, { write: (line: string) => logged.push(line) }),
  );
});
afterAll(async () => {
  await emailing?.close();
  await mailServer?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

const emailAttempt = (subject: string) => emailing.emailAttempt(subject);

describe('SMTP_OAUTH2_TOKEN_FILE', () => {
  it('signs in with the token of the file, read again before each email: a refreshed token is used from the next email on', async () => {
    const before = await emailAttempt('Before the refresh');
    expect(before.attempt).toMatchObject({ outcome: 'delivered' });
    expect(signIns).toEqual([TOKEN_A]);
    expect(mailServer.delivered(before.paymentId)).toBe(true);

    current = TOKEN_B;
    renderToken(TOKEN_B);
    const after = await emailAttempt('After the refresh');
    expect(after.attempt).toMatchObject({ outcome: 'delivered' });
    expect(signIns).toEqual([TOKEN_A, TOKEN_B]);
    expect(mailServer.delivered(after.paymentId)).toBe(true);
    // The first token's pool, its email answered, is closed: only the second one's connection stays.
    await eventually(
      async () => mailServer.openConnections(),
      (open) => open === 1,
    );
  });

  it('fails the attempt, naming the file and not its content, when it is empty or cannot be read', async () => {
    renderToken('');
    const empty = await emailAttempt('With an empty file');
    expect(empty.attempt).toMatchObject({ outcome: 'failed', error: `SMTP_OAUTH2_TOKEN_FILE names ${file}, which is empty` });

    fs.rmSync(file);
    const missing = await emailAttempt('Without the file');
    expect(missing.attempt).toMatchObject({ outcome: 'failed', error: `SMTP_OAUTH2_TOKEN_FILE names ${file}, which cannot be read (ENOENT)` });
    expect(mailServer.delivered(empty.paymentId) || mailServer.delivered(missing.paymentId)).toBe(false);
  });

  it('logs no token', () => {
    // The log is the worker's: the failures above are in it, named by file.
    expect(logged.some((line) => line.includes(`SMTP_OAUTH2_TOKEN_FILE names ${file}`))).toBe(true);
    // Nor as the AUTH XOAUTH2 command carries it, in base64.
    const sent = [TOKEN_A, TOKEN_B].map((token) => Buffer.from(`user=${USER}\x01auth=Bearer ${token}\x01\x01`).toString('base64'));
    for (const line of logged) for (const secret of [TOKEN_A, TOKEN_B, ...sent]) expect(line).not.toContain(secret);
  });
});
