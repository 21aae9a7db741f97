// The request signature of the v2 API, as every official v2 client computes it:
//   METHOD & pct(url) & pct(key)=pct(value) ...   (parameters sorted by encoded key)
// where url is the absolute URL the client called without its query string, the parameters are the
// decoded query and form parameters, and pct is RFC 3986 percent-encoding. A JSON body, which the
// clients never send for v2 operations but would sign this way, is appended raw as `&` + body.
// The hash is the lowercase hex HMAC-SHA256 of that text keyed with the receiver secret, sent as
// `Authorization: <receiver_id>:<hash>`.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignedParam = readonly [key: string, value: string];

export interface SignatureHeader {
  receiverId: number;
  hash: string;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;
const BYTE_TEXT = Array.from({ length: 256 }, (_, byte) => {
  const char = String.fromCharCode(byte);
  return byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
});

/** RFC 3986: A-Z a-z 0-9 - . _ ~ stay, every other UTF-8 byte becomes %XX; a space is %20, never +. */
export function percentEncode(text: string): string {
  if (UNRESERVED.test(text)) return text;
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) out += BYTE_TEXT[byte];
  return out;
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function stringToSign(method: string, url: string, params: readonly SignedParam[], jsonBody?: string): string {
  const encoded = params.map(([key, value]) => [percentEncode(key), percentEncode(value)] as const);
  // Keys are unique in every client; the value breaks ties only so that the text is well defined.
  encoded.sort(([ak, av], [bk, bv]) => byText(ak, bk) || byText(av, bv));
  let text = `${method.toUpperCase()}&${percentEncode(url)}`;
  for (const [key, value] of encoded) text += `&${key}=${value}`;
  if (jsonBody !== undefined) text += `&${jsonBody}`;
  return text;
}

export function signature(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

const HASH = /^[0-9a-f]{64}$/i;

/** Compares in constant time, so the answer time says nothing about how much of a guess was right. */
export function signatureMatches(secret: string, text: string, hash: string): boolean {
  if (!HASH.test(hash)) return false;
  return timingSafeEqual(Buffer.from(hash, 'hex'), createHmac('sha256', secret).update(text, 'utf8').digest());
}

const HEADER = /^\s*(\d{1,15}):([0-9a-fA-F]{64})\s*$/;

/** Reads `<receiver_id>:<64 hex digits>`; anything else is not a v2 signature. */
export function parseSignatureHeader(value: string): SignatureHeader | undefined {
  const match = HEADER.exec(value);
  return match ? { receiverId: Number(match[1]), hash: match[2]! } : undefined;
}
