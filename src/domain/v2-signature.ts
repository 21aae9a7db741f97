// The request signature of the v2 API, as every official v2 client computes it:
//   METHOD & pct(url) & pct(key)=pct(value) ...   (parameters sorted by encoded key)
// where url is the absolute URL the client called without its query string, the parameters are the
// decoded query and form parameters, and pct is RFC 3986 percent-encoding. A JSON body, which the
// clients never send for v2 operations but would sign this way, is appended raw as `&` + body.
// The hash is the lowercase hex HMAC-SHA256 of that text keyed with the receiver secret, sent as
// `Authorization: <receiver_id>:<hash>`.
// A client may sign another spelling of what it sends: the Java client signs a double's
// Double.toString text and sends its BigDecimal text, and any client signs the base URL as
// configured, host case and default port included. Those spellings verify too (requestSignatureMatches).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { MAX_AMOUNT_TEXT, plainDecimalText, withoutTrailingZeros } from './money.js';

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

/** The fields the Java client sends as doubles (amount and integrator_fee of create-payment). */
export const JAVA_DOUBLE_FIELDS: ReadonlySet<string> = new Set(['amount', 'integrator_fee']);

/**
 * The text the Java client signed for a double it sent as `sent`, if they differ. It signs
 * Double.toString(d) and sends BigDecimal.valueOf(d).toString(): the same digits, but from 10^7 up
 * and below 10^-3 the first writes "1.0E7" and "1.23456785E7" where the second writes "1.0E+7"
 * and "12345678.5". Worked out on the decimal text, so it is exact.
 */
export function javaDoubleText(sent: string): string | undefined {
  // Longer text is no double the Java client writes, and it is read before the signature is checked.
  if (sent.length > MAX_AMOUNT_TEXT) return undefined;
  const match = /^(\d+)(?:\.(\d+))?$/.exec(plainDecimalText(sent));
  if (!match) return undefined;
  const whole = match[1]!.replace(/^0+/, '');
  const fraction = match[2] ?? '';
  const digits = withoutTrailingZeros((whole + fraction).replace(/^0+/, ''));
  if (digits === '') return undefined;
  // The power of ten of the first significant digit.
  const exponent = whole ? whole.length - 1 : -1 - (fraction.length - fraction.replace(/^0+/, '').length);
  if (exponent >= -3 && exponent < 7) return undefined;
  const text = `${digits[0]}.${digits.slice(1) || '0'}E${exponent}`;
  return text === sent ? undefined : text;
}

/** The parameters as the Java client signed them, if that differs from how they arrived. */
function javaSignedParams(params: readonly SignedParam[]): SignedParam[] | undefined {
  let differs = false;
  const signed = params.map(([key, value]): SignedParam => {
    const text = JAVA_DOUBLE_FIELDS.has(key) ? javaDoubleText(value) : undefined;
    if (text === undefined) return [key, value];
    differs = true;
    return [key, text];
  });
  return differs ? signed : undefined;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * Other spellings of a base URL (origin and path, host in lower case, no default port) that name
 * the same server: with the default port written out, and with the host in the letter case of the
 * request's Host header when that names the same host. The client signs the spelling it is
 * configured with; only the Host header tells which case that was.
 */
export function otherBaseSpellings(base: string, hostHeader: string | undefined): string[] {
  const url = new URL(base);
  const path = base.slice(url.origin.length);
  const hosts = [url.hostname];
  const sentHost = hostHeader?.replace(/:\d*$/, '');
  if (sentHost !== undefined && sentHost !== url.hostname && sentHost.toLowerCase() === url.hostname) hosts.push(sentHost);
  const ports = url.port ? [`:${url.port}`] : ['', `:${DEFAULT_PORTS[url.protocol]}`];
  const spellings = hosts.flatMap((host) => ports.map((port) => `${url.protocol}//${host}${port}${path}`));
  return spellings.filter((spelling) => spelling !== base);
}

export interface SignedRequest {
  method: string;
  /** The public base URL, as configured. */
  base: string;
  /** The request path, without the query string. */
  path: string;
  /** The request's Host header. */
  host: string | undefined;
  /** The decoded query and form parameters. */
  params: readonly SignedParam[];
  jsonBody?: string;
}

/**
 * Whether `hash` signs the request in any of the spellings a client may have signed: the URL as
 * configured first (one HMAC for every request signed that way), then the others.
 */
export function requestSignatureMatches(secret: string, hash: string, request: SignedRequest): boolean {
  const matches = (base: string, params: readonly SignedParam[]) =>
    signatureMatches(secret, stringToSign(request.method, base + request.path, params, request.jsonBody), hash);
  if (matches(request.base, request.params)) return true;
  const java = javaSignedParams(request.params);
  if (java && matches(request.base, java)) return true;
  return otherBaseSpellings(request.base, request.host).some((base) => matches(base, request.params) || (java !== undefined && matches(base, java)));
}

const HEADER = /^\s*(\d{1,15}):([0-9a-fA-F]{64})\s*$/;

/** Reads `<receiver_id>:<64 hex digits>`; anything else is not a v2 signature. */
export function parseSignatureHeader(value: string): SignatureHeader | undefined {
  const match = HEADER.exec(value);
  return match ? { receiverId: Number(match[1]), hash: match[2]! } : undefined;
}
