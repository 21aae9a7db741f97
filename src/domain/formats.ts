// Text formats the contract names: emails, URLs, ISO country codes. One definition serves the
// request schemas (as ajv formats) and the use cases.

// The WHATWG "valid e-mail address" grammar: what browsers accept in <input type=email>.
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export function isEmail(text: string): boolean {
  return EMAIL.test(text);
}

/** A URL the service will call or fetch: absolute http(s). */
export function isWebUrl(text: string): boolean {
  return parseUrl(text, ['http:', 'https:']) !== undefined;
}

// Payers are sent to return and cancel URLs: apps use their own schemes there, but a script
// URL would run in the payer's browser.
const UNSAFE_REDIRECT_SCHEMES = ['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'];

/** A URL the payer's browser is sent to: any absolute URL but script-running schemes. */
export function isRedirectUrl(text: string): boolean {
  const url = parseUrl(text);
  return url !== undefined && !UNSAFE_REDIRECT_SCHEMES.includes(url.protocol);
}

/**
 * URL parsing drops tabs and line breaks inside a URL, so `http://a/\r\nb` parses: kept as sent, it
 * would later go into a Location header (which cannot carry them: a payer who just paid would get
 * an error instead of their redirect) or into a notification. Control characters are refused.
 */
const CONTROL = /[\u0000-\u001F\u007F]/;

function parseUrl(text: string, protocols?: string[]): URL | undefined {
  if (text !== text.trim() || CONTROL.test(text)) return undefined;
  try {
    const url = new URL(text);
    if (protocols && !protocols.includes(url.protocol)) return undefined;
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.hostname) return undefined;
    return url;
  } catch {
    return undefined;
  }
}

// ISO 3166-1 alpha-2, officially assigned codes.
const COUNTRIES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
    'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
    'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
    'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
    'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

export function isCountryCode(text: string): boolean {
  return COUNTRIES.has(text);
}
