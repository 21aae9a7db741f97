// An email as the outbox stores it: written once, with the change that causes it, and handed to
// the mail server unchanged on every attempt. The body of an email message is JSON of this shape
// (content type EMAIL_CONTENT_TYPE); docs/emails.md describes it for operators.

export const EMAIL_CONTENT_TYPE = 'application/vnd.quipu.email+json';

export interface Email {
  /** `Name <address>` or an address (SMTP_FROM). */
  from: string;
  /** The recipient's address. */
  to: string;
  /** The recipient's name, shown beside the address. */
  toName: string | null;
  subject: string;
  text: string;
  html: string;
}

export function encodeEmail(email: Email): string {
  return JSON.stringify({ from: email.from, to: email.to, to_name: email.toName, subject: email.subject, text: email.text, html: email.html });
}

export function decodeEmail(body: string): Email {
  const stored = JSON.parse(body) as { from: string; to: string; to_name: string | null; subject: string; text: string; html: string };
  return { from: stored.from, to: stored.to, toName: stored.to_name, subject: stored.subject, text: stored.text, html: stored.html };
}

/**
 * Text for a header (a subject, a name): on one line. Line breaks and other control characters
 * become spaces, so no merchant's value can end its header and start another (a Bcc, say).
 */
export function headerText(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/**
 * The Message-ID of every attempt of one message, derived from the message's id (at the sender's
 * domain): a mail server or client that gets the same email twice sees it is the same.
 */
export function emailMessageId(messageId: string, from: string): string {
  const domain = /@([^<>\s@]+)>?\s*$/.exec(from)?.[1] ?? 'quipu.invalid';
  return `<${messageId}@${domain}>`;
}
