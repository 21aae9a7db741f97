// An email as the outbox stores it: written once, with the change that causes it, and handed to
// the mail server unchanged on every attempt. The body of an email message is JSON of this shape
// (content type EMAIL_CONTENT_TYPE); docs/emails.md describes it for operators.

export const EMAIL_CONTENT_TYPE = 'application/vnd.quipu.email+json';

/** A file sent with an email: its bytes as base64, as stored and as handed to the mail server. */
export interface EmailAttachment {
  filename: string;
  contentType: string;
  contentBase64: string;
}

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
  attachments: EmailAttachment[];
}

interface StoredAttachment {
  filename: string;
  content_type: string;
  content_base64: string;
}

/** Attachments in the stored shape, which the emails API shows too. */
export const storedAttachments = (attachments: readonly EmailAttachment[]): StoredAttachment[] =>
  attachments.map((a) => ({ filename: a.filename, content_type: a.contentType, content_base64: a.contentBase64 }));

/** The members of an email in the stored names, attachments aside: the emails API shows them so too. */
export const storedFields = (email: Email) => ({
  from: email.from,
  to: email.to,
  to_name: email.toName,
  subject: email.subject,
  text: email.text,
  html: email.html,
});

// An email without attachments is stored without the member, as every email was before attachments.
export function encodeEmail(email: Email): string {
  const attachments = storedAttachments(email.attachments);
  return JSON.stringify({ ...storedFields(email), ...(attachments.length > 0 && { attachments }) });
}

export function decodeEmail(body: string): Email {
  const stored = JSON.parse(body) as {
    from: string;
    to: string;
    to_name: string | null;
    subject: string;
    text: string;
    html: string;
    attachments?: StoredAttachment[];
  };
  return {
    from: stored.from,
    to: stored.to,
    toName: stored.to_name,
    subject: stored.subject,
    text: stored.text,
    html: stored.html,
    attachments: (stored.attachments ?? []).map((a) => ({ filename: a.filename, contentType: a.content_type, contentBase64: a.content_base64 })),
  };
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
