// Exact money. An amount is an integer count of 1/10000 of the currency unit (the contract allows
// at most four decimals), so no amount ever passes through floating-point arithmetic.

export const SCALE = 4;
const UNIT = 10_000;
/** Amounts are capped so that units stay exact JavaScript integers. */
const MAX_UNITS = 100_000_000_000 * UNIT - 1;

export type AmountParse = { ok: true; units: number } | { ok: false; reason: string };

/**
 * Parses a plain decimal ("1000", "100.0", "12.3456") into units, refusing more significant
 * decimals than `maxDecimals`. Trailing zeros are not significant: "100.0" is a valid CLP amount.
 */
export function parseAmount(text: string, maxDecimals: number): AmountParse {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return { ok: false, reason: 'must be a decimal number with "." as decimal separator and no thousands separator' };
  const whole = match[1]!.replace(/^0+(?=\d)/, '');
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > maxDecimals) {
    return { ok: false, reason: maxDecimals === 0 ? 'must not have decimals in this currency' : `must have at most ${maxDecimals} decimals in this currency` };
  }
  if (whole.length > 11) return { ok: false, reason: 'is too large' };
  const units = Number(whole) * UNIT + Number(fraction.padEnd(SCALE, '0'));
  if (units > MAX_UNITS) return { ok: false, reason: 'is too large' };
  return { ok: true, units };
}

/** The decimal text of a JSON number as the client wrote it (JS prints the shortest round-trip form). */
export function numberToDecimalText(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  return /e/i.test(text) ? undefined : text;
}

/** Shortest decimal text: 1000, 1000.5, 0.0001. */
export function formatAmount(units: number): string {
  const whole = Math.trunc(units / UNIT);
  const fraction = String(units % UNIT).padStart(SCALE, '0').replace(/0+$/, '');
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
