// What Quipu emails the payer of a payment: the collection request (send_email), written with the
// payment, and its reminders (send_reminders, domain/reminder-schedule.ts). Quipu does not know
// the payer's language, so each email says everything in Spanish first (the payer pages' default)
// and then in English, each part marked with its language, amounts and dates written the way the
// payer pages write them in that language. Every merchant value goes through the escaping `html`
// template in the HTML part, and header values are kept on one line.
import { EMAIL_CONTENT_TYPE, encodeEmail, headerText } from '../domain/email-message.js';
import type { Merchant } from '../domain/merchant.js';
import type { MessageDraft, PayerEmailKind } from '../domain/message-kinds.js';
import { type Payment, paymentUrls } from '../domain/payment.js';
import { formatInstant, formatMoney } from './format.js';
import { html } from './html.js';
import { type Lang, LANGUAGES, messages } from './words.js';

/** The sender (SMTP_FROM) and the base of the payment link (PUBLIC_BASE_URL). */
export interface EmailSettings {
  smtpFrom: string;
  publicBaseUrl: string;
}

const SUBJECT: Record<PayerEmailKind, string> = {
  'payment.email.collection': 'Cobro / Payment request',
  'payment.email.reminder': 'Recordatorio / Reminder',
};

interface Words {
  greeting(name: string | null): string;
  collection(merchant: string): string;
  reminder(merchant: string, expires: string): string;
  payLink: string;
  payButton: string;
  notYours: string;
}

const WORDS: Record<Lang, Words> = {
  es: {
    greeting: (name) => (name ? `Hola, ${name}:` : 'Hola:'),
    collection: (merchant) => `${merchant} te envió un cobro.`,
    reminder: (merchant, expires) => `Te recordamos que tienes un cobro pendiente de ${merchant}. Vence el ${expires}.`,
    payLink: 'Para pagarlo, abre este enlace:',
    payButton: 'Pagar',
    notYours: 'Si no reconoces este cobro, puedes rechazarlo o denunciarlo en esa misma página.',
  },
  en: {
    greeting: (name) => (name ? `Hello ${name},` : 'Hello,'),
    collection: (merchant) => `${merchant} has sent you a payment request.`,
    reminder: (merchant, expires) => `This is a reminder that you have a pending payment request from ${merchant}. It expires on ${expires}.`,
    payLink: 'To pay it, open this link:',
    payButton: 'Pay',
    notYours: "If you don't recognise this charge, you can decline or report it on that same page.",
  },
};

/** One language's part of an email: what it says, in the order it says it. */
function part(kind: PayerEmailKind, lang: Lang, payment: Payment, merchantName: string, url: string) {
  const m = messages(lang);
  const w = WORDS[lang];
  const expires = formatInstant(payment.expiresAt, m);
  return {
    lang,
    greeting: w.greeting(payment.payerName === null ? null : headerText(payment.payerName)),
    intro: kind === 'payment.email.collection' ? w.collection(merchantName) : w.reminder(merchantName, expires),
    facts: [
      [m.subject, headerText(payment.subject)],
      ...(payment.body ? [[m.details, payment.body]] : []),
      [m.amount, formatMoney(payment.amount, payment.currency, m)],
      [m.expires, expires],
    ] as [string, string][],
    payLink: w.payLink,
    payButton: w.payButton,
    notYours: w.notYours,
    url,
  };
}

type Part = ReturnType<typeof part>;

function textPart(p: Part): string {
  return [p.greeting, p.intro, p.facts.map(([label, value]) => `${label}: ${value}`).join('\n'), `${p.payLink}\n${p.url}`, p.notYours].join('\n\n');
}

function htmlPart(p: Part) {
  return html`<div lang="${p.lang}">
<p>${p.greeting}</p>
<p>${p.intro}</p>
<table role="presentation" style="border-collapse:collapse;margin:1em 0">
${p.facts.map(
  ([
    label,
    value,
  ]) => html`<tr><th style="text-align:left;padding:2px 16px 2px 0;font-weight:normal;color:#555">${label}</th><td style="padding:2px 0">${value}</td></tr>
`,
)}</table>
<p><a href="${p.url}" style="display:inline-block;padding:10px 24px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${p.payButton}</a></p>
<p style="font-size:13px">${p.payLink}<br><a href="${p.url}">${p.url}</a></p>
<p style="font-size:13px;color:#555">${p.notYours}</p>
</div>`;
}

/** The payer's email of `kind` about `payment`; none when the payment names no payer email. */
export function paymentEmail(kind: PayerEmailKind, payment: Payment, merchant: Pick<Merchant, 'name'>, settings: EmailSettings): MessageDraft | undefined {
  if (!payment.payerEmail) return undefined;
  const merchantName = headerText(merchant.name);
  const url = paymentUrls(settings.publicBaseUrl, payment).payment_url;
  const parts = LANGUAGES.map((lang) => part(kind, lang, payment, merchantName, url));
  const subject = headerText(`${SUBJECT[kind]}: ${payment.subject} · ${merchantName}`);
  const document = html`<!doctype html>
<html lang="${parts[0]!.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${subject}</title>
</head>
<body style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1a1a1a">
<div style="max-width:560px;margin:0 auto">
${parts.map((p, i) => html`${i > 0 ? html`<hr style="border:none;border-top:1px solid #ddd;margin:24px 0">` : ''}${htmlPart(p)}`)}
</div>
</body>
</html>
`;
  return {
    kind,
    receiverId: payment.receiverId,
    subjectId: payment.paymentId,
    url: `mailto:${payment.payerEmail}`,
    contentType: EMAIL_CONTENT_TYPE,
    body: encodeEmail({
      from: settings.smtpFrom,
      to: payment.payerEmail,
      toName: payment.payerName === null ? null : headerText(payment.payerName),
      subject,
      text: `${parts.map(textPart).join('\n\n-----\n\n')}\n`,
      html: document.text,
    }),
    // An email asking to pay a payment that has expired would lead the payer to a dead end.
    validUntil: payment.expiresAt.getTime(),
  };
}
