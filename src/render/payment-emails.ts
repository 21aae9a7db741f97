// What Quipu emails the payer of a payment: the collection request (send_email), written with the
// payment, and its reminders (send_reminders, domain/reminder-schedule.ts), which say everything
// in Spanish first (the payer pages' default) and then in English, each part marked with its
// language, since Quipu does not know the payer's language then; and once the payment is
// reconciled, its confirmation with the receipt attached, in the language the payer chose on the
// payer pages. Amounts and dates are written the way the payer pages write them in each language.
// Every merchant value goes through the escaping `html` template in the HTML part, and header
// values are kept on one line.
import { EMAIL_CONTENT_TYPE, type Email, encodeEmail, headerText } from '../domain/email-message.js';
import type { Merchant } from '../domain/merchant.js';
import type { MessageDraft, PayerEmailKind } from '../domain/message-kinds.js';
import { type Payment, paymentUrls } from '../domain/payment.js';
import { type ReceiptPayment, receiptFileName } from '../domain/receipt.js';
import { formatInstant, formatMoney } from './format.js';
import { type Html, html } from './html.js';
import { receiptFacts, receiptPdf } from './receipt.js';
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
  confirmation(merchant: string): string;
  receiptLink: string;
}

const WORDS: Record<Lang, Words> = {
  es: {
    greeting: (name) => (name ? `Hola, ${name}:` : 'Hola:'),
    collection: (merchant) => `${merchant} te envió un cobro.`,
    reminder: (merchant, expires) => `Te recordamos que tienes un cobro pendiente de ${merchant}. Vence el ${expires}.`,
    payLink: 'Para pagarlo, abre este enlace:',
    payButton: 'Pagar',
    notYours: 'Si no reconoces este cobro, puedes rechazarlo o denunciarlo en esa misma página.',
    confirmation: (merchant) => `Tu pago a ${merchant} fue recibido. Te enviamos el comprobante adjunto, en PDF.`,
    receiptLink: 'También puedes descargarlo en este enlace:',
  },
  en: {
    greeting: (name) => (name ? `Hello ${name},` : 'Hello,'),
    collection: (merchant) => `${merchant} has sent you a payment request.`,
    reminder: (merchant, expires) => `This is a reminder that you have a pending payment request from ${merchant}. It expires on ${expires}.`,
    payLink: 'To pay it, open this link:',
    payButton: 'Pay',
    notYours: "If you don't recognise this charge, you can decline or report it on that same page.",
    confirmation: (merchant) => `Your payment to ${merchant} was received. The receipt is attached as a PDF.`,
    receiptLink: 'You can also download it from this link:',
  },
};

type Facts = [label: string, value: string][];

const toName = (payment: Pick<Payment, 'payerName'>) => (payment.payerName === null ? null : headerText(payment.payerName));

/** One language's part of an email: what it says, in the order it says it. */
function part(kind: PayerEmailKind, lang: Lang, payment: Payment, merchantName: string, url: string) {
  const m = messages(lang);
  const w = WORDS[lang];
  const expires = formatInstant(payment.expiresAt, m);
  return {
    lang,
    greeting: w.greeting(toName(payment)),
    intro: kind === 'payment.email.collection' ? w.collection(merchantName) : w.reminder(merchantName, expires),
    facts: [
      [m.subject, headerText(payment.subject)],
      ...(payment.body ? [[m.details, payment.body]] : []),
      [m.amount, formatMoney(payment.amount, payment.currency, m)],
      [m.expires, expires],
    ] as Facts,
    payLink: w.payLink,
    payButton: w.payButton,
    notYours: w.notYours,
    url,
  };
}

type Part = ReturnType<typeof part>;

const textFacts = (facts: Facts) => facts.map(([label, value]) => `${label}: ${value}`).join('\n');

function textPart(p: Part): string {
  return [p.greeting, p.intro, textFacts(p.facts), `${p.payLink}\n${p.url}`, p.notYours].join('\n\n');
}

function htmlFacts(facts: Facts): Html {
  return html`<table role="presentation" style="border-collapse:collapse;margin:1em 0">
${facts.map(
  ([
    label,
    value,
  ]) => html`<tr><th style="text-align:left;padding:2px 16px 2px 0;font-weight:normal;color:#555">${label}</th><td style="padding:2px 0">${value}</td></tr>
`,
)}</table>`;
}

function htmlPart(p: Part): Html {
  return html`<div lang="${p.lang}">
<p>${p.greeting}</p>
<p>${p.intro}</p>
${htmlFacts(p.facts)}
<p><a href="${p.url}" style="display:inline-block;padding:10px 24px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${p.payButton}</a></p>
<p style="font-size:13px">${p.payLink}<br><a href="${p.url}">${p.url}</a></p>
<p style="font-size:13px;color:#555">${p.notYours}</p>
</div>`;
}

/** The HTML part of an email: its language parts one after another, ruled apart. */
function htmlDocument(lang: Lang, subject: string, parts: Html[]): string {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${subject}</title>
</head>
<body style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1a1a1a">
<div style="max-width:560px;margin:0 auto">
${parts.map((p, i) => html`${i > 0 ? html`<hr style="border:none;border-top:1px solid #ddd;margin:24px 0">` : ''}${p}`)}
</div>
</body>
</html>
`.text;
}

/** The payer's email of `kind` about `payment`; none when the payment names no payer email. */
export function paymentEmail(kind: PayerEmailKind, payment: Payment, merchant: Pick<Merchant, 'name'>, settings: EmailSettings): MessageDraft | undefined {
  if (!payment.payerEmail) return undefined;
  const merchantName = headerText(merchant.name);
  const url = paymentUrls(settings.publicBaseUrl, payment).payment_url;
  const parts = LANGUAGES.map((lang) => part(kind, lang, payment, merchantName, url));
  const subject = headerText(`${SUBJECT[kind]}: ${payment.subject} · ${merchantName}`);
  return {
    ...toPayer(kind, payment, payment.payerEmail, settings, {
      subject,
      text: `${parts.map(textPart).join('\n\n-----\n\n')}\n`,
      html: htmlDocument(parts[0]!.lang, subject, parts.map(htmlPart)),
      attachments: [],
    }),
    // An email asking to pay a payment that has expired would lead the payer to a dead end.
    validUntil: payment.expiresAt.getTime(),
  };
}

/** The message of an email to a payment's payer, from SMTP_FROM. */
function toPayer(
  kind: MessageDraft['kind'],
  payment: Pick<Payment, 'receiverId' | 'paymentId' | 'payerName'>,
  to: string,
  settings: Pick<EmailSettings, 'smtpFrom'>,
  email: Pick<Email, 'subject' | 'text' | 'html' | 'attachments'>,
): MessageDraft {
  return {
    kind,
    receiverId: payment.receiverId,
    subjectId: payment.paymentId,
    url: `mailto:${to}`,
    contentType: EMAIL_CONTENT_TYPE,
    body: encodeEmail({ from: settings.smtpFrom, to, toName: toName(payment), ...email }),
  };
}

/** What the confirmation repeats of the receipt it carries. */
const CONFIRMED_FACTS = new Set(['subject', 'amount', 'conciliation-date', 'payment-id']);

/**
 * A reconciled payment's confirmation to its payer (whose payer_email is set), in `lang`, with the
 * receipt's PDF attached and its address (receipt_url, in the same language) written out.
 */
export async function confirmationEmail(
  payment: ReceiptPayment & { payerEmail: string },
  merchant: Pick<Merchant, 'name'>,
  lang: Lang,
  settings: Pick<EmailSettings, 'smtpFrom'>,
): Promise<MessageDraft> {
  const m = messages(lang);
  const w = WORDS[lang];
  const merchantName = headerText(merchant.name);
  const subject = headerText(`${m.receiptTitle}: ${payment.subject} · ${merchantName}`);
  const greeting = w.greeting(toName(payment));
  const intro = w.confirmation(merchantName);
  const facts: Facts = receiptFacts(m, payment, merchant)
    .filter((fact) => CONFIRMED_FACTS.has(fact.name))
    .map(({ label, value }) => [label, headerText(value)]);
  const url = new URL(payment.receiptUrl);
  url.searchParams.set('lang', lang);
  const receipt = await receiptPdf(m, payment, merchant);
  return toPayer('payment.email.confirmation', payment, payment.payerEmail, settings, {
    subject,
    text: `${[greeting, intro, textFacts(facts), `${w.receiptLink}\n${url.href}`].join('\n\n')}\n`,
    html: htmlDocument(lang, subject, [
      html`<div lang="${lang}">
<p>${greeting}</p>
<p>${intro}</p>
${htmlFacts(facts)}
<p style="font-size:13px">${w.receiptLink}<br><a href="${url.href}">${url.href}</a></p>
</div>`,
    ]),
    attachments: [
      {
        filename: receiptFileName(payment.paymentId, payment.conciliationAt),
        contentType: 'application/pdf',
        contentBase64: Buffer.from(receipt).toString('base64'),
      },
    ],
  });
}
