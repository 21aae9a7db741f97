// The mail server's credentials change while Quipu runs (ASVS 13.2.1): given as SMTP_URL_FILE, the
// URL is read again before each email, so a password a secrets manager replaces is used from the
// next email on, without a restart. A mail server that takes only the current password stands for
// the rotation: an email before it signs in with the first password, one after it with the second.
// A file that cannot be read fails the email's attempt with an error naming the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SigningInMailServer, startEmailingServer, startSigningInMailServer } from '../helpers/mail-server.js';

const USER = 'quipu';
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-smtp-secret-'));
const file = path.join(folder, 'smtp-url');

/** The password the server takes now, and every password an AUTH was given, in order. */
let current = 'first-password';
const signIns: string[] = [];
let mailServer: SigningInMailServer;
const renderUrl = (password: string) =>
  fs.writeFileSync(file, `smtp://${USER}:${encodeURIComponent(password)}@127.0.0.1:${mailServer.port}\n`, { mode: 0o600 });

let emailing: Awaited<ReturnType<typeof startEmailingServer>>;

beforeAll(async () => {
  mailServer = await startSigningInMailServer((auth, _session, callback) => {
    signIns.push(auth.password ?? '');
    return auth.username === USER && auth.password === current ? callback(null, { user: USER }) : callback(new Error('Invalid username or password'));
  });
  renderUrl(current);
  emailing = await startEmailingServer({ SMTP_URL_FILE: file });
});
afterAll(async () => {
  await emailing?.close();
  await mailServer?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

const emailAttempt = (subject: string) => emailing.emailAttempt(subject);

describe('SMTP_URL_FILE', () => {
  it('is read again before each email: after the password changes, the next email signs in with the new one', async () => {
    const before = await emailAttempt('Before the rotation');
    expect(before.attempt).toMatchObject({ outcome: 'delivered' });
    expect(signIns).toEqual(['first-password']);

    current = 'second-password';
    renderUrl(current);
    const after = await emailAttempt('After the rotation');
    expect(after.attempt).toMatchObject({ outcome: 'delivered' });
    expect(signIns).toEqual(['first-password', 'second-password']);
    expect(mailServer.delivered(after.paymentId)).toBe(true);
  });

  it('fails the attempt, naming the file, when it cannot be read', async () => {
    fs.rmSync(file);
    const { attempt, paymentId } = await emailAttempt('Without the file');
    expect(attempt).toMatchObject({ outcome: 'failed', error: `SMTP_URL_FILE names ${file}, which cannot be read (ENOENT)` });
    expect(mailServer.delivered(paymentId)).toBe(false);
  });
});
