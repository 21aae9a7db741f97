// Collection emails leave through the installation's mail server with a subject and body the
// merchant chose: past ten a day to one address (or 500 an hour for an account) a create with
// send_email is a 429 with Retry-After that writes nothing, on both databases; other addresses
// and payments without email go on. Without SMTP_URL emails stay in the local inbox and are not
// limited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTION_EMAIL_LIMITS, emailLimitBreached } from '../../src/domain/email-limits.js';
import { client } from '../helpers/http.js';
import { type MailServer, startMailServer } from '../helpers/mail-server.js';
import { countRows } from '../helpers/payments.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let mail: MailServer;
let server: TestServer;
let account: TestAccount;

beforeAll(async () => {
  mail = await startMailServer();
  server = await startTestServer({ SMTP_URL: mail.url });
  account = await server.account();
});
afterAll(async () => {
  await server?.close();
  await mail?.close();
});

const emailed = (payerEmail: string) =>
  client(server.baseUrl, account.api_key).post('/v3/payments', {
    amount: 1000,
    currency: 'CLP',
    subject: 'Invoice',
    send_email: true,
    payer_name: 'Ana',
    payer_email: payerEmail,
  });

describe('collection emails', () => {
  it(`to one address: ${COLLECTION_EMAIL_LIMITS.perRecipient.count} a day, then a 429 that writes nothing; another address goes on`, async () => {
    for (let i = 0; i < COLLECTION_EMAIL_LIMITS.perRecipient.count; i++) expect((await emailed('target@example.com')).status).toBe(200);
    const before = { payments: await countRows(server.ctx.db, 'payments'), messages: await countRows(server.ctx.db, 'messages') };
    const refused = await emailed('target@example.com');
    expect(refused.status).toBe(429);
    expect(refused.body.message).toContain('collection emails a day to one address');
    expect(refused.headers.get('retry-after')).toBe('60');
    expect({ payments: await countRows(server.ctx.db, 'payments'), messages: await countRows(server.ctx.db, 'messages') }).toEqual(before);
    expect((await emailed('other@example.com')).status).toBe(200);
  });

  it('per account and per recipient, the first limit reached is named', () => {
    expect(
      emailLimitBreached({ account: COLLECTION_EMAIL_LIMITS.perAccount.count - 1, recipient: COLLECTION_EMAIL_LIMITS.perRecipient.count - 1 }),
    ).toBeUndefined();
    expect(emailLimitBreached({ account: COLLECTION_EMAIL_LIMITS.perAccount.count, recipient: 0 })).toBe('account');
    expect(emailLimitBreached({ account: 0, recipient: COLLECTION_EMAIL_LIMITS.perRecipient.count })).toBe('recipient');
  });
});
