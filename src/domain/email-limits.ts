// How many collection emails an account may have Quipu send. The merchant chooses their subject
// and body and the address they go to, so an unbounded account is a spam relay on the
// installation's mail server: at most this many an hour in all, and this many a day to one
// address. Only emails that leave the machine count (SMTP_URL set); the local inbox harms no one.

export const COLLECTION_EMAIL_LIMITS = {
  perAccount: { count: 500, windowMs: 3_600_000 },
  perRecipient: { count: 10, windowMs: 24 * 3_600_000 },
} as const;

/** Which limit one more email would pass, given the emails already written within each window. */
export function emailLimitBreached(sent: { account: number; recipient: number }): 'account' | 'recipient' | undefined {
  if (sent.account >= COLLECTION_EMAIL_LIMITS.perAccount.count) return 'account';
  if (sent.recipient >= COLLECTION_EMAIL_LIMITS.perRecipient.count) return 'recipient';
  return undefined;
}
