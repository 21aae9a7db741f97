// Amounts and dates as a payer reads them, in the language of the page or email. Amounts are
// formatted from their exact decimal text (Intl formats decimal strings without going through a float).
import { findCurrency } from '../domain/currency.js';
import { formatAmount } from '../domain/money.js';
import type { Messages } from './words.js';

/** Banks and payers in Chile read times in Santiago's zone. */
const ZONE = 'America/Santiago';

// Building an Intl format costs far more than formatting with one (about a millisecond against
// microseconds): each is built once per locale and currency, a few dozen at most.
const moneyFormats = new Map<string, Intl.NumberFormat>();
const instantFormats = new Map<string, Intl.DateTimeFormat>();

function once<T>(formats: Map<string, T>, key: string, build: () => T): T {
  let format = formats.get(key);
  if (format === undefined) formats.set(key, (format = build()));
  return format;
}

export function formatMoney(units: number, currency: string, m: Messages): string {
  const format = once(moneyFormats, `${m.locale} ${currency}`, () => {
    const decimals = findCurrency(currency)?.decimals ?? 2;
    return new Intl.NumberFormat(m.locale, { style: 'currency', currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  });
  return format.format(formatAmount(units) as `${number}`);
}

export function formatInstant(instant: Date, m: Messages): string {
  const format = once(
    instantFormats,
    m.locale,
    () =>
      new Intl.DateTimeFormat(m.locale, {
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone: ZONE,
        timeZoneName: 'short',
      }),
  );
  return format.format(instant);
}

/** A date as lists show it, "26 nov · 18:01" (Santiago, 24-hour clock): the year and zone are in formatInstant's long form. */
export function formatShortInstant(instant: Date, m: Messages): string {
  const day = new Intl.DateTimeFormat(m.locale, { day: 'numeric', month: 'short', timeZone: ZONE }).format(instant);
  const time = new Intl.DateTimeFormat(m.locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: ZONE }).format(instant);
  return `${day} · ${time}`;
}
