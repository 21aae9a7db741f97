// The official v2 client libraries (Ruby, Java, PHP, .NET) as far as the wire is concerned: how each
// writes values, encodes the form body and signs the request. Written from the libraries' code and
// independently of the server's signing module, so a test that passes through them shows the
// server accepts what those libraries really send.
import { createHmac } from 'node:crypto';
import { call, type JsonResponse } from './http.js';

export type ClientName = 'ruby' | 'java' | 'php' | 'dotnet';
export type ParamValue = string | number | boolean | Date;
export type Params = Record<string, ParamValue>;

/** Percent-encodes UTF-8 bytes, keeping the ASCII characters in `keep` and writing a space as `space`. */
function encoder(keep: RegExp, space: string) {
  return (text: string): string => {
    let out = '';
    for (const byte of Buffer.from(text, 'utf8')) {
      const char = String.fromCharCode(byte);
      if (byte < 0x80 && keep.test(char)) out += char;
      else if (char === ' ' && space !== '%20') out += space;
      else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
  };
}

const rfc3986 = encoder(/[A-Za-z0-9\-._~]/, '%20');
/** java.net.URLEncoder: keeps . - * _, writes a space as +. */
const javaUrlEncoder = encoder(/[A-Za-z0-9.\-*_]/, '+');
/** PHP http_build_query (RFC 1738): keeps - _ ., a space as +, and encodes ~. */
const phpQuery = encoder(/[A-Za-z0-9\-_.]/, '+');
/** Ruby's URI.encode_www_form_component, as Typhoeus writes form bodies. */
const rubyForm = encoder(/[A-Za-z0-9*\-._]/, '+');

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The wall-clock fields of `date` in a zone `offsetMinutes` from UTC. */
function local(date: Date, offsetMinutes: number) {
  const d = new Date(date.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return {
    date: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
    millis: pad(d.getUTCMilliseconds(), 3),
    offset: `${sign}${pad(Math.trunc(abs / 60))}${pad(abs % 60)}`,
    offsetColon: `${sign}${pad(Math.trunc(abs / 60))}:${pad(abs % 60)}`,
  };
}

/** Float to text as each language prints a double. */
const floatText = { trailingZero: (n: number) => (Number.isInteger(n) ? `${n}.0` : String(n)), plain: (n: number) => String(n) };

/**
 * Java's Double.toString: plain, with at least one decimal, from 10^-3 up to below 10^7, else
 * "computerized scientific notation" ("1.0E7", "1.23456785E7"). Its digits are the shortest that
 * read back as the same double, which JavaScript prints too.
 */
function javaDoubleToString(n: number): string {
  const abs = Math.abs(n);
  if (abs === 0 || (abs >= 1e-3 && abs < 1e7)) return floatText.trailingZero(n);
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/**
 * BigDecimal.valueOf(d).toString(): Double.toString's text read as an unscaled value and a scale,
 * then written plain when the scale is not negative and the number not below 10^-6, otherwise as
 * one digit, the rest after a point, and a signed exponent ("1.0E+7"). So 10,000,000 goes out as
 * "1.0E+7" and 12,345,678.5 as "12345678.5".
 */
function javaBigDecimalText(n: number): string {
  const [mantissa, exponent = '0'] = javaDoubleToString(n).split('E') as [string, string?];
  const [whole, fraction = ''] = mantissa.split('.') as [string, string?];
  const unscaled = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  const scale = fraction.length - Number(exponent);
  const adjusted = unscaled.length - 1 - scale;
  if (scale >= 0 && adjusted >= -6) {
    if (scale === 0) return unscaled;
    const padded = unscaled.padStart(scale + 1, '0');
    return `${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
  }
  return `${unscaled[0]}${unscaled.length > 1 ? `.${unscaled.slice(1)}` : ''}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
}

interface ClientStyle {
  /** How a parameter value becomes text on the wire. */
  value(v: ParamValue): string;
  /** How it becomes text in the string to sign, where that differs from the wire (Java's doubles). */
  signedValue?(v: ParamValue): string;
  /** Encoding of keys and values in the string to sign. */
  signEncode(text: string): string;
  /** Keys sorted before (Java, .NET) or after (Ruby, PHP) encoding. */
  sortEncoded: boolean;
  /** Encoding of the form body and query string. */
  wireEncode(text: string): string;
  /** Which requests without form parameters still carry a form Content-Type (and an empty body unless GET). */
  emptyForm: 'always' | 'except-get' | 'never';
}

const CHILE = -180;

export const CLIENTS: Record<ClientName, ClientStyle> = {
  // khipu-api-ruby-client: Time#to_s dates, Float#to_s amounts, URI.escape for signing.
  ruby: {
    value: (v) => {
      if (v instanceof Date) {
        const l = local(v, CHILE);
        return `${l.date} ${l.time} ${l.offset}`;
      }
      return typeof v === 'number' ? floatText.trailingZero(v) : String(v);
    },
    signEncode: rfc3986,
    sortEncoded: true,
    wireEncode: rubyForm,
    emptyForm: 'always',
  },
  // khipu-api-java-client: SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX") in UTC. A double is
  // signed as Double.toString (KhipuAuth: value.toString()) and sent as BigDecimal.valueOf(d)
  // (ApiClient.parameterToString): the two differ from 10^7 up.
  java: {
    value: (v) => {
      if (v instanceof Date) return v.toISOString();
      return typeof v === 'number' ? javaBigDecimalText(v) : String(v);
    },
    signedValue: (v) => (typeof v === 'number' ? javaDoubleToString(v) : CLIENTS.java.value(v)),
    signEncode: (text) => javaUrlEncoder(text).replaceAll('+', '%20').replaceAll('*', '%2A').replaceAll('%7E', '~'),
    sortEncoded: false,
    wireEncode: javaUrlEncoder,
    emptyForm: 'except-get',
  },
  // khipu-api-php-client: rawurlencode to sign, http_build_query to send (which writes true as 1
  // and false as 0), DateTime::ISO8601 in the DateTime's own zone (-0300 for a Chilean merchant).
  php: {
    value: (v) => {
      if (v instanceof Date) {
        const l = local(v, CHILE);
        return `${l.date}T${l.time}${l.offset}`;
      }
      if (typeof v === 'boolean') return v ? '1' : '0';
      return typeof v === 'number' ? floatText.plain(v) : v;
    },
    signEncode: rfc3986,
    sortEncoded: true,
    wireEncode: phpQuery,
    emptyForm: 'always',
  },
  // khipu-api-dotnet-client: Convert.ToString (True/False), "yyyy-MM-ddTHH:mm:ss.fffK", Uri.EscapeDataString.
  dotnet: {
    value: (v) => {
      if (v instanceof Date) {
        const l = local(v, CHILE);
        return `${l.date}T${l.time}.${l.millis}${l.offsetColon}`;
      }
      if (typeof v === 'boolean') return v ? 'True' : 'False';
      return typeof v === 'number' ? floatText.plain(v) : v;
    },
    signEncode: rfc3986,
    sortEncoded: false,
    wireEncode: rfc3986,
    emptyForm: 'never',
  },
};

export interface Prepared {
  method: string;
  /** Path on the server, with the query string. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface V2Account {
  receiver_id: number;
  secret: string;
}

export interface V2ClientOptions {
  /** Where the server listens. */
  networkUrl: string;
  /** The base URL the client is configured with (what it signs): public base URL + prefix. */
  signedBase: string;
  /** The API prefix on the server: /2.0 or /api/2.0. */
  prefix: string;
}

export function signWith(style: ClientStyle, secret: string, method: string, url: string, params: [string, string][]): string {
  const pairs = params.map(([k, v]) =>
    style.sortEncoded ? [style.signEncode(k), style.signEncode(v), style.signEncode(k)] : [style.signEncode(k), style.signEncode(v), k],
  );
  pairs.sort((a, b) => (a[2]! < b[2]! ? -1 : a[2]! > b[2]! ? 1 : 0));
  let text = `${method}&${style.signEncode(url)}`;
  for (const [k, v] of pairs) text += `&${k}=${v}`;
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** A v2 client of one library's style, bound to an account. */
export function v2Client(name: ClientName, account: V2Account, options: V2ClientOptions) {
  const style = CLIENTS[name];
  const signedValue = style.signedValue ?? style.value;
  const text = (params: Params = {}, write = style.value): [string, string][] => Object.entries(params).map(([k, v]) => [k, write(v)]);
  const encode = (pairs: [string, string][]) => pairs.map(([k, v]) => `${style.wireEncode(k)}=${style.wireEncode(v)}`).join('&');

  function prepare(method: string, path: string, params: { query?: Params; form?: Params } = {}): Prepared {
    const query = text(params.query);
    const form = params.form ? text(params.form) : undefined;
    const signed = [...text(params.query, signedValue), ...text(params.form, signedValue)];
    const hash = signWith(style, account.secret, method, options.signedBase + path, signed);
    const headers: Record<string, string> = { authorization: `${account.receiver_id}:${hash}`, accept: 'application/json' };
    const formType = form !== undefined || style.emptyForm === 'always' || (style.emptyForm === 'except-get' && method !== 'GET');
    if (formType) headers['content-type'] = 'application/x-www-form-urlencoded';
    const search = query.length > 0 ? `?${encode(query)}` : '';
    const body = method !== 'GET' && formType ? encode(form ?? []) : undefined;
    return { method, path: `${options.prefix}${path}${search}`, headers, body };
  }

  function send<T = any>(prepared: Prepared): Promise<JsonResponse<T>> {
    return call<T>(options.networkUrl, prepared.method, prepared.path, { headers: prepared.headers, rawBody: prepared.body });
  }

  return {
    name,
    prepare,
    send,
    request: <T = any>(method: string, path: string, params?: { query?: Params; form?: Params }) => send<T>(prepare(method, path, params)),
    /** The text a parameter value becomes on the wire in this client. */
    value: style.value,
    /** The text it becomes in the string this client signs. */
    signedValue,
  };
}

export type V2Client = ReturnType<typeof v2Client>;
