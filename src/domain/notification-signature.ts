// The `x-khipu-signature` header of a 3.0 notification: `t=<unix ms>,s=<base64 HMAC-SHA256>` over
// `t + "." + rawBody`, keyed with the receiver secret (merchant plugins verify with the secret,
// not the API key).
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-khipu-signature';

export function notificationSignature(secret: string, timestampMs: number, rawBody: string): string {
  const s = createHmac('sha256', secret).update(`${timestampMs}.${rawBody}`).digest('base64');
  return `t=${timestampMs},s=${s}`;
}

/** The headers that sign one attempt of a message, by the message's signing (domain/message-kinds.ts). */
export function signingHeaders(signing: string, secret: string, timestampMs: number, rawBody: string): Record<string, string> {
  return signing === 'khipu-signature' ? { [SIGNATURE_HEADER]: notificationSignature(secret, timestampMs, rawBody) } : {};
}
