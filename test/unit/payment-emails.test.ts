// The payer's emails as pure functions: both languages, the payer pages' amounts and dates, the
// payment link, escaping in the HTML part and one-line headers whatever the merchant wrote.
import { describe, expect, it } from 'vitest';
import { decodeEmail, EMAIL_CONTENT_TYPE, emailMessageId, headerText } from '../../src/domain/email-message.js';
import type { Payment } from '../../src/domain/payment.js';
import { paymentFixture } from '../helpers/payment-fixture.js';
import { paymentEmail } from '../../src/render/payment-emails.js';

const CREATED = new Date('2025-03-01T15:00:00Z');
const EXPIRES = new Date('2025-03-04T15:00:00Z');
const SETTINGS = { smtpFrom: 'Quipu <no-reply@quipu.example>', publicBaseUrl: 'https://pay.example' };

function emailedPayment(overrides: Partial<Payment> = {}): Payment {
  return paymentFixture({
    receiverId: 42,
    expiresAt: EXPIRES,
    sendEmail: true,
    sendReminders: true,
    payerName: 'Ana Pérez',
    payerEmail: 'ana@example.com',
    createdAt: CREATED,
    updatedAt: CREATED,
    ...overrides,
  });
}

/** Intl separates currency codes, times and zones with no-break spaces: compared as plain spaces. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

function emailOf(kind: 'payment.email.collection' | 'payment.email.reminder', payment: Payment, merchantName = 'Tienda Sur') {
  const draft = paymentEmail(kind, payment, { name: merchantName }, SETTINGS)!;
  const email = decodeEmail(draft.body);
  return { draft, email: { ...email, text: plain(email.text), html: plain(email.html) } };
}

describe('the collection email', () => {
  it('is a message to the payer, valid until the payment expires, stored as the documented JSON', () => {
    const { draft, email } = emailOf('payment.email.collection', emailedPayment());
    expect(draft).toMatchObject({
      kind: 'payment.email.collection',
      receiverId: 42,
      subjectId: 'abc123def456',
      url: 'mailto:ana@example.com',
      contentType: EMAIL_CONTENT_TYPE,
      validUntil: EXPIRES.getTime(),
    });
    expect(Object.keys(JSON.parse(draft.body))).toEqual(['from', 'to', 'to_name', 'subject', 'text', 'html']);
    expect(email).toMatchObject({ from: 'Quipu <no-reply@quipu.example>', to: 'ana@example.com', toName: 'Ana Pérez' });
    expect(email.subject).toBe('Cobro / Payment request: Order 17 · Tienda Sur');
  });

  it('says everything in Spanish, then in English, with amounts and dates as the payer pages write them', () => {
    const { email } = emailOf('payment.email.collection', emailedPayment({ body: 'Two boxes' }));
    const [es, en] = email.text.split('\n-----\n');
    expect(es).toContain('Hola, Ana Pérez:');
    expect(es).toContain('Tienda Sur te envió un cobro.');
    expect(es).toContain('Motivo: Order 17');
    expect(es).toContain('Detalle: Two boxes');
    expect(es).toContain('Monto: $1.000');
    expect(es).toMatch(/Vence: 4 de marzo de 2025/);
    expect(es).toContain('Para pagarlo, abre este enlace:\nhttps://pay.example/payment/info/abc123def456');
    expect(en).toContain('Hello Ana Pérez,');
    expect(en).toContain('Tienda Sur has sent you a payment request.');
    expect(en).toContain('Subject: Order 17');
    expect(en).toContain('Amount: CLP 1,000');
    expect(en).toMatch(/Expires: March 4, 2025/);
    expect(en).toContain('To pay it, open this link:\nhttps://pay.example/payment/info/abc123def456');

    const esAt = email.html.indexOf('<div lang="es">');
    const enAt = email.html.indexOf('<div lang="en">');
    expect(esAt).toBeGreaterThan(0);
    expect(enAt).toBeGreaterThan(esAt);
    expect(email.html.match(/href="https:\/\/pay\.example\/payment\/info\/abc123def456"/g)).toHaveLength(4);
    expect(email.html).toContain('$1.000');
    expect(email.html).toContain('CLP 1,000');
  });

  it('writes other currencies with their own decimals', () => {
    const { email } = emailOf('payment.email.collection', emailedPayment({ amount: 12_345_600, currency: 'USD' }));
    expect(email.text).toContain('Monto: US$1.234,56');
    expect(email.text).toContain('Amount: $1,234.56');
  });

  it('has no email to write without a payer email', () => {
    expect(paymentEmail('payment.email.collection', emailedPayment({ payerEmail: null }), { name: 'Shop' }, SETTINGS)).toBeUndefined();
  });
});

describe('the reminder', () => {
  it('reminds in both languages when the payment expires', () => {
    const { draft, email } = emailOf('payment.email.reminder', emailedPayment());
    expect(draft.kind).toBe('payment.email.reminder');
    expect(email.subject).toBe('Recordatorio / Reminder: Order 17 · Tienda Sur');
    expect(email.text).toMatch(/Te recordamos que tienes un cobro pendiente de Tienda Sur\. Vence el 4 de marzo de 2025/);
    expect(email.text).toMatch(/This is a reminder that you have a pending payment request from Tienda Sur\. It expires on March 4, 2025/);
    expect(email.text).toContain('https://pay.example/payment/info/abc123def456');
  });
});

describe('merchant values', () => {
  const hostile = '<script>alert("x")</script> "&\'';

  it('are escaped in the HTML part and kept as written in the text part', () => {
    const { email } = emailOf(
      'payment.email.collection',
      emailedPayment({ subject: hostile, body: '<img src=x onerror=alert(1)>', payerName: '<b>Ana</b>' }),
      `<i>Shop</i> "&'`,
    );
    expect(email.html).not.toContain('<script>');
    expect(email.html).not.toContain('<img');
    expect(email.html).not.toContain('<b>');
    expect(email.html).not.toContain('<i>');
    expect(email.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &quot;&amp;&#39;');
    expect(email.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(email.html).toContain('&lt;i&gt;Shop&lt;/i&gt; &quot;&amp;&#39;');
    expect(email.text).toContain(`Motivo: ${hostile}`);
  });

  it('cannot add a header: line breaks in a subject, a merchant name or a payer name become spaces', () => {
    const { email } = emailOf(
      'payment.email.collection',
      emailedPayment({ subject: 'Order 1\r\nBcc: thief@evil.example', payerName: 'Ana\r\nCc: thief@evil.example' }),
      'Shop\nX-Injected: yes',
    );
    expect(email.subject).toBe('Cobro / Payment request: Order 1 Bcc: thief@evil.example · Shop X-Injected: yes');
    expect(email.toName).toBe('Ana Cc: thief@evil.example');
    for (const header of [email.subject, email.toName!]) expect(header).not.toMatch(/[\r\n]/);
    expect(headerText(' a\u2028b\u0000\tc\u0085d ')).toBe('a b c d');
  });
});

describe('Message-ID', () => {
  it('is derived from the message id, at the sender domain', () => {
    expect(emailMessageId('0b4c-11', 'Quipu <no-reply@quipu.example>')).toBe('<0b4c-11@quipu.example>');
    expect(emailMessageId('0b4c-11', 'billing@shop.example')).toBe('<0b4c-11@shop.example>');
  });
});
