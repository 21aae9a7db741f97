// Payer emails through a real mail server: the collection request written with the payment (v3
// and v2) and the reminders the housekeeping job writes on the developer clock, their content in
// both languages as the mail server receives them; a reconciled payment's confirmation with its
// receipt attached; reminders stopped by paying, deleting and expiry, pending ones withdrawn; and a
// create that fails leaves neither payment nor email.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordCredits } from '../../src/app/record-credits.js';
import { sendDueReminders } from '../../src/app/send-reminders.js';
import { findPayment } from '../../src/store/payments.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { ACCEPT, type MailServer, type ReceivedMail, startMailServer } from '../helpers/mail-server.js';
import { eventually } from '../helpers/notification-receiver.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { readPdf } from '../helpers/pdf-text.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { v2Client } from '../helpers/v2-clients.js';

const HOUR = 3_600_000;
const MERCHANT = 'Tienda "Sur" & <Co>';
const HOSTILE_SUBJECT = `<script>alert("x")</script> "&'`;
/** The states an email stays in for good: withdrawn, or out of attempts. */
const ENDED = ['cancelled', 'exhausted'];

let mail: MailServer;
let server: TestServer;
let account: TestAccount;
let worker: DeliveryWorker;

beforeAll(async () => {
  mail = await startMailServer();
  server = await startTestServer({ SMTP_URL: mail.url, SMTP_FROM: 'Tienda Sur <cobros@tienda.example>' });
  account = await server.account({ name: MERCHANT });
  worker = testWorker(server, { timeoutMs: 2_000 });
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await mail?.close();
});

const api = () => client(server.baseUrl, account.api_key);
/** Intl separates currency codes and times with no-break spaces: compared as plain spaces. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');
const mailsTo = (address: string) => mail.mails.filter((m) => m.envelope.to.includes(address));

async function emailsOf(paymentId: string) {
  const res = await api().get(`/quipu/v1/emails?payment_id=${paymentId}`);
  expect(res.status).toBe(200);
  return res.body.emails as { id: string; kind: string; status: string; subject: string; text: string; html: string; attempts: number }[];
}

async function emailDetail(id: string) {
  const res = await api().get(`/quipu/v1/emails/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** The account's clock, which its payments' reminders follow and clockTo moves. */
const accountClock = () => server.ctx.clocks.of(account.receiver_id);

async function clockTo(at: number): Promise<void> {
  expect((await api().post('/sandbox/clock', { to: new Date(at).toISOString() })).status).toBe(200);
}

function emailedPayment(fields: Record<string, unknown>) {
  return api().post('/v3/payments', {
    amount: 1000,
    currency: 'CLP',
    subject: 'Order',
    send_email: true,
    send_reminders: true,
    payer_name: 'Ana Pérez',
    ...fields,
  });
}

function expectBothLanguages(received: ReceivedMail, paymentUrl: string) {
  const text = plain(received.parsed.text!);
  const html = plain(received.parsed.html as string);
  const [es, en] = text.split('\n-----\n');
  expect(es).toContain('Hola, Ana Pérez:');
  expect(es).toContain('Monto: $1.000');
  expect(es).toContain(`Motivo: ${HOSTILE_SUBJECT}`);
  expect(es).toContain(paymentUrl);
  expect(en).toContain('Hello Ana Pérez,');
  expect(en).toContain('Amount: CLP 1,000');
  expect(en).toContain(`Subject: ${HOSTILE_SUBJECT}`);
  expect(en).toContain(paymentUrl);
  expect(html.indexOf('<div lang="es">')).toBeLessThan(html.indexOf('<div lang="en">'));
  expect(html).toContain(`href="${paymentUrl}"`);
  expect(html).not.toContain('<script>');
  expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &quot;&amp;&#39;');
  expect(html).toContain('Tienda &quot;Sur&quot; &amp; &lt;Co&gt;');
}

describe('payer emails through the mail server', () => {
  it('sends the collection email with the payment and a reminder before expiry, in Spanish and English', async () => {
    const t0 = accountClock().now().getTime();
    const created = await emailedPayment({ subject: HOSTILE_SUBJECT, payer_email: 'ana@example.com', expires_date: new Date(t0 + 50 * HOUR).toISOString() });
    expect(created.status).toBe(200);
    const { payment_id: paymentId, payment_url: paymentUrl } = created.body;

    await mail.waitFor(() => mailsTo('ana@example.com').length === 1);
    const [collection] = await emailsOf(paymentId);
    const received = mailsTo('ana@example.com')[0]!;
    expect(received.envelope).toEqual({ from: 'cobros@tienda.example', to: ['ana@example.com'] });
    expect(received.parsed.from!.value).toEqual([{ name: 'Tienda Sur', address: 'cobros@tienda.example' }]);
    expect((received.parsed.to as { value: unknown }).value).toEqual([{ name: 'Ana Pérez', address: 'ana@example.com' }]);
    expect(received.parsed.subject).toBe(`Cobro / Payment request: ${HOSTILE_SUBJECT} · ${MERCHANT}`);
    expect(received.parsed.messageId).toBe(`<${collection!.id}@tienda.example>`);
    expectBothLanguages(received, paymentUrl);

    // The inbox API shows what the mail server got, and the server's answer.
    expect(collection).toMatchObject({ kind: 'payment.email.collection', to: 'ana@example.com', subject: received.parsed.subject });
    expect(collection!.text.trim()).toBe(received.parsed.text!.trim());
    const detail = await eventually(
      () => emailDetail(collection!.id),
      (e) => e.status === 'delivered',
    );
    expect(detail.attempt_log).toEqual([
      expect.objectContaining({
        number: 1,
        outcome: 'delivered',
        status_code: 250,
        error: null,
        response_excerpt: expect.stringContaining('OK: queued as test'),
      }),
    ]);

    // Reminders: 1 day and 3 hours before expiry (3 days before falls before creation).
    expect(await sendDueReminders(server.ctx)).toBe(0);
    await clockTo(t0 + 26 * HOUR);
    expect(await sendDueReminders(server.ctx)).toBe(1);
    expect(await sendDueReminders(server.ctx)).toBe(0);
    await mail.waitFor(() => mailsTo('ana@example.com').length === 2);
    const reminder = mailsTo('ana@example.com')[1]!;
    expect(reminder.parsed.subject).toBe(`Recordatorio / Reminder: ${HOSTILE_SUBJECT} · ${MERCHANT}`);
    expect(plain(reminder.parsed.text!)).toMatch(/Te recordamos que tienes un cobro pendiente de Tienda "Sur" & <Co>\. Vence el/);
    expect(plain(reminder.parsed.text!)).toMatch(/This is a reminder that you have a pending payment request from Tienda "Sur" & <Co>\. It expires on/);
    expectBothLanguages(reminder, paymentUrl);

    await clockTo(t0 + 47 * HOUR);
    expect(await sendDueReminders(server.ctx)).toBe(1);
    await mail.waitFor(() => mailsTo('ana@example.com').length === 3);
    // None is left: two more days bring nothing.
    await clockTo(t0 + 100 * HOUR);
    expect(await sendDueReminders(server.ctx)).toBe(0);
    expect((await emailsOf(paymentId)).map((e) => e.kind)).toEqual(['payment.email.reminder', 'payment.email.reminder', 'payment.email.collection']);
  });

  it('sends the collection email of a v2 payment too, and none for a payment that did not ask', async () => {
    const php = v2Client('php', account, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });
    const created = await php.request('POST', '/payments', {
      form: { subject: 'Pedido v2', currency: 'CLP', amount: '2500', send_email: true, payer_name: 'Bea', payer_email: 'bea@example.com' },
    });
    expect(created.status).toBe(200);
    const silent = await api().post('/v3/payments', {
      amount: 1000,
      currency: 'CLP',
      subject: 'No email',
      payer_name: 'Cata',
      payer_email: 'cata@example.com',
    });
    expect(silent.status).toBe(200);

    await mail.waitFor(() => mailsTo('bea@example.com').length === 1);
    const text = plain(mailsTo('bea@example.com')[0]!.parsed.text!);
    expect(text).toContain('Monto: $2.500');
    expect(text).toContain('Amount: CLP 2,500');
    expect(text).toContain(created.body.payment_url);
    expect(await emailsOf(silent.body.payment_id)).toEqual([]);
    expect(mailsTo('cata@example.com')).toEqual([]);
  });

  it("confirms a reconciled payment to its payer in the payer pages' default language, the receipt PDF attached", async () => {
    const created = await api().post('/v3/payments', { amount: 7000, currency: 'CLP', subject: HOSTILE_SUBJECT, payer_name: 'Eva' });
    expect(created.status).toBe(200);
    const paid = await payByTransfer(server.ctx, account.merchant, created.body.payment_id, { payerName: 'Eva', payerEmail: 'eva@example.com' });

    await mail.waitFor(() => mailsTo('eva@example.com').length === 1);
    const received = mailsTo('eva@example.com')[0]!;
    const [confirmation] = await emailsOf(paid.paymentId);
    expect(confirmation).toMatchObject({ kind: 'payment.email.confirmation', to: 'eva@example.com' });
    expect(received.parsed.messageId).toBe(`<${confirmation!.id}@tienda.example>`);
    expect(received.parsed.subject).toBe(`Comprobante de pago: ${HOSTILE_SUBJECT} · ${MERCHANT}`);
    const text = plain(received.parsed.text!);
    expect(text).toContain('Hola, Eva:');
    expect(text).toContain('Monto: $7.000');
    expect(text).toContain(`${paid.receiptUrl}?lang=es`);
    expect(received.parsed.html).not.toContain('<script>');
    expect(received.parsed.attachments).toHaveLength(1);
    const [pdf] = received.parsed.attachments;
    expect(pdf).toMatchObject({ contentType: 'application/pdf', filename: paid.receiptUrl!.split('/').pop() });
    const lines = (await readPdf(pdf!.content)).lines.map(plain);
    for (const line of [paid.paymentId, '$7.000', 'Comprobante de pago']) expect(lines).toContain(line);
  });

  it('stops reminders when the payment is paid, deleted or expires, and withdraws emails still waiting for the mail server', async () => {
    mail.answer(() => ({ refuse: 451, message: 'Mailbox busy, try later' }));
    const t0 = accountClock().now().getTime();
    const expires = new Date(t0 + 50 * HOUR).toISOString();
    const ids: Record<'paid' | 'deleted' | 'expiring', string> = { paid: '', deleted: '', expiring: '' };
    for (const which of Object.keys(ids) as (keyof typeof ids)[]) {
      const created = await emailedPayment({ subject: `Stopped ${which}`, payer_email: `${which}@example.com`, expires_date: expires });
      expect(created.status).toBe(200);
      ids[which] = created.body.payment_id;
    }

    await clockTo(t0 + 26 * HOUR);
    expect(await sendDueReminders(server.ctx)).toBe(3);
    for (const id of Object.values(ids)) {
      const emails = await eventually(
        () => emailsOf(id),
        (list) => list.length === 2 && list.every((e) => e.attempts >= 1),
      );
      expect(emails.map((e) => e.status)).toEqual(['pending', 'pending']);
    }
    const refused = await emailDetail((await emailsOf(ids.expiring))[0]!.id);
    expect(refused.attempt_log[0]).toMatchObject({
      outcome: 'failed',
      status_code: 451,
      error: expect.stringMatching(/^SMTP 451 .*Mailbox busy, try later/),
      response_excerpt: expect.stringContaining('451'),
    });

    // Paid and deleted: their emails are withdrawn at once, and no reminder is written after.
    await payByTransfer(server.ctx, account.merchant, ids.paid);
    expect((await api().delete(`/v3/payments/${ids.deleted}`)).status).toBe(200);
    for (const id of [ids.paid, ids.deleted]) expect((await emailsOf(id)).map((e) => e.status)).toEqual(['cancelled', 'cancelled']);
    // A withdrawn email stays withdrawn: resending it would ask the payer to pay a paid payment.
    const withdrawnId = (await emailsOf(ids.paid))[0]!.id;
    const resent = await api().post(`/quipu/v1/events/${withdrawnId}/resend`);
    expect(resent.status).toBe(400);
    expect(resent.body.message).toMatch(/withdrawn unsent/);
    expect((await emailDetail(withdrawnId)).status).toBe('cancelled');

    await clockTo(t0 + 47 * HOUR);
    expect(await sendDueReminders(server.ctx)).toBe(1);
    expect(await emailsOf(ids.paid)).toHaveLength(2);
    expect(await emailsOf(ids.deleted)).toHaveLength(2);
    const reminders = async () => (await emailsOf(ids.expiring)).filter((e) => e.kind === 'payment.email.reminder');
    await eventually(reminders, (list) => list.length === 2 && list.every((e) => e.attempts >= 1));

    // Past expiry: the reminders' next attempts find them no longer valid and withdraw them.
    await clockTo(t0 + 58 * HOUR);
    const withdrawn = await eventually(reminders, (list) => list.every((e) => e.status === 'cancelled'));
    expect(withdrawn).toHaveLength(2);
    expect(await sendDueReminders(server.ctx)).toBe(0);
    // The collection email ends too, at its own next attempt: withdrawn the same way, or out of
    // attempts (its two days of 451s are over).
    await eventually(
      () => emailsOf(ids.expiring),
      (list) => list.length === 3 && list.every((e) => ENDED.includes(e.status)),
    );

    // The mail server takes email again: nothing about these payments is left to send.
    mail.answer(ACCEPT);
    for (const id of Object.values(ids)) for (const e of await emailsOf(id)) expect(ENDED).toContain(e.status);
    const accepted = mail.mails.filter((m) => m.answer === 'accepted' && Object.keys(ids).some((which) => m.envelope.to.includes(`${which}@example.com`)));
    expect(accepted).toEqual([]);
  });

  it('withdraws the waiting emails of every payment a statement of bank credits pays, and writes no reminder for them after', async () => {
    mail.answer(() => ({ refuse: 451, message: 'Mailbox busy, try later' }));
    const t0 = accountClock().now().getTime();
    const ids: string[] = [];
    for (const n of [1, 2]) {
      const created = await emailedPayment({
        subject: `Statement ${n}`,
        payer_email: `statement${n}@example.com`,
        expires_date: new Date(t0 + 50 * HOUR).toISOString(),
      });
      ids.push(created.body.payment_id);
    }
    for (const id of ids)
      await eventually(
        () => emailsOf(id),
        (list) => list.length === 1 && list[0]!.attempts >= 1,
      );

    const payments = await Promise.all(ids.map(async (id) => (await findPayment(server.ctx.db, account.merchant.receiverId, id))!));
    const statement = payments.map((payment, n) => ({
      bankReference: `statement-${payment.paymentId}`,
      account: payment.collectAccountUuid,
      amount: payment.amount,
      currency: payment.currency,
      reference: payment.paymentId,
      creditedAt: accountClock().now(),
      payerBankId: 'LrNcd',
      payerName: 'Ana Pérez',
      payerEmail: `statement${n + 1}@example.com`,
      payerPersonalIdentifier: '12.345.678-5',
      payerAccountNumber: '0012345678',
      paymentMethod: 'regular_transfer' as const,
      fundsSource: null,
    }));
    expect((await recordCredits(server.ctx, statement, 'operator')).map((o) => (o.status === 'unmatched' ? o.reason : o.status))).toEqual([
      'matched',
      'matched',
    ]);
    // Each payer's confirmation, written with the reconciliation, is not among the emails it withdraws.
    const kindsAndStatuses = async (id: string) => (await emailsOf(id)).map((e) => `${e.kind} ${e.status}`);
    for (const id of ids) {
      expect((await api().get(`/v3/payments/${id}`)).body.status).toBe('done');
      expect(await kindsAndStatuses(id)).toEqual(['payment.email.confirmation pending', 'payment.email.collection cancelled']);
    }
    await clockTo(t0 + 47 * HOUR);
    await sendDueReminders(server.ctx);
    for (const id of ids) expect(await emailsOf(id)).toHaveLength(2);
    mail.answer(ACCEPT);
  });

  it('writes neither the payment nor its email when the create fails', async () => {
    const before = { payments: await countRows(server.ctx.db, 'payments'), messages: await countRows(server.ctx.db, 'messages') };
    const invalid = await api().post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'No address', send_email: true });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['payer_email', 'payer_name']);

    // The database refuses the email: the payment written before it in the same transaction goes too.
    const refuseEmails =
      server.database.kind === 'sqlite'
        ? [sql`create trigger refuse_emails before insert on messages when new.kind like 'payment.email.%' begin select raise(abort, 'emails refused'); end`]
        : [
            sql`create function refuse_emails() returns trigger language plpgsql as $$ begin raise exception 'emails refused'; end $$`,
            sql`create trigger refuse_emails before insert on messages for each row when (new.kind like 'payment.email.%') execute function refuse_emails()`,
          ];
    for (const statement of refuseEmails) await statement.execute(server.ctx.db);
    try {
      const failed = await emailedPayment({ subject: 'Never stored', payer_email: 'never@example.com' });
      expect(failed.status).toBe(500);
      // Without send_email nothing else is written: the payment is created as usual.
      expect((await api().post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Plain' })).status).toBe(200);
    } finally {
      await sql`drop trigger refuse_emails${server.database.kind === 'sqlite' ? sql`` : sql` on messages`}`.execute(server.ctx.db);
    }
    expect(await countRows(server.ctx.db, 'payments')).toBe(before.payments + 1);
    expect(await countRows(server.ctx.db, 'messages')).toBe(before.messages);
    const listed = await api().get('/quipu/v1/emails?limit=500');
    expect(listed.body.emails.some((e: { to: string }) => e.to === 'never@example.com')).toBe(false);
  });
});
