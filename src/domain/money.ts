// Exact money. An amount is an integer count of 1/10000 of the currency unit (the contract allows
// at most four decimals), so no amount ever passes through floating-point arithmetic.

export const SCALE = 4;
const UNIT = 10_000;
/** Amounts stay below this many currency units, so that units stay exact JavaScript integers. */
const LIMIT = 100_000_000_000;
const MAX_UNITS = LIMIT * UNIT - 1;

export type AmountParse = { ok: true; units: number } | { ok: false; reason: string };

/**
 * Longer amount text is refused before it is read. Amounts arrive before anything else is known of
 * a request (a v2 signature is checked over them), so reading them must be bounded as well as
 * linear; below the bound, a number too large is refused for its range, which says more.
 */
export const MAX_AMOUNT_TEXT = 1024;

/**
 * `text` without its trailing zeros, in one backwards pass. A pattern (`/0+$/`) retries from every
 * zero of a run: quadratic in `1000…0001`, seconds of a frozen server for 60 KB of text.
 */
export function withoutTrailingZeros(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x30) end--;
  return text.slice(0, end);
}

export interface DecimalParts {
  negative: boolean;
  /** Without leading zeros (`0` for none). */
  whole: string;
  /** Without trailing zeros: only the significant decimals. */
  fraction: string;
}

/** The parts of a plain decimal (`-012.50` → negative, `12`, `5`), or nothing when the text is not one. */
export function decimalParts(text: string): DecimalParts | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  return { negative: match[1] === '-', whole: match[2]!.replace(/^0+(?=\d)/, ''), fraction: withoutTrailingZeros(match[3] ?? '') };
}

/**
 * Parses a plain decimal ("1000", "100.0", "12.3456") into units, refusing more significant
 * decimals than `maxDecimals`. Trailing zeros are not significant: "100.0" is a valid CLP amount.
 */
export function parseAmount(text: string, maxDecimals: number): AmountParse {
  if (text.length > MAX_AMOUNT_TEXT) return { ok: false, reason: `must be at most ${MAX_AMOUNT_TEXT} characters long` };
  const parts = decimalParts(text);
  if (!parts) return { ok: false, reason: 'must be a decimal number with "." as decimal separator and no thousands separator' };
  if (parts.negative) return { ok: false, reason: 'must be greater than zero' };
  const { whole, fraction } = parts;
  if (fraction.length > maxDecimals) {
    return { ok: false, reason: maxDecimals === 0 ? 'must not have decimals in this currency' : `must have at most ${maxDecimals} decimals in this currency` };
  }
  const units = Number(whole) * UNIT + Number(fraction.padEnd(SCALE, '0'));
  if (whole.length > String(LIMIT).length || units > MAX_UNITS) return { ok: false, reason: `is out of range: amounts must be below ${LIMIT}` };
  return { ok: true, units };
}

/**
 * Decimal text in plain notation: exponent forms ("1e-7", "1.0E+7", "1.23456785E7") are written
 * out exactly ("0.0000001", "10000000", "12345678.5"), so they meet the same decimal and range
 * rules as any amount; other text is returned as it is. Exponents beyond any double's are left
 * alone (and refused by those rules) rather than written out as millions of zeros.
 */
export function plainDecimalText(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?[eE]([+-]?\d{1,3})$/.exec(text);
  if (!match) return text;
  const [, sign = '', whole = '', fraction = '', power = '0'] = match;
  const digits = `${whole}${fraction}`;
  const point = whole.length + Number(power);
  const plain =
    point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits.padEnd(point, '0') : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${sign}${plain}`;
}

/** The decimal text of a JSON number as the client wrote it (JavaScript prints the shortest text that reads back as the same number). */
export function numberToDecimalText(value: number): string | undefined {
  return Number.isFinite(value) ? plainDecimalText(String(value)) : undefined;
}

/** Shortest decimal text: 1000, 1000.5, 0.0001. */
export function formatAmount(units: number): string {
  const whole = Math.trunc(units / UNIT);
  const fraction = withoutTrailingZeros(String(units % UNIT).padStart(SCALE, '0'));
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** Four-decimal text, as the provider writes amounts in 3.0 notifications ("1000.0000"). */
export function formatAmountFixed(units: number): string {
  return `${Math.trunc(units / UNIT)}.${String(units % UNIT).padStart(SCALE, '0')}`;
}

/** The JSON number for a response: parsed from the exact decimal text, never computed. */
export function amountToNumber(units: number): number {
  return Number(formatAmount(units));
}
