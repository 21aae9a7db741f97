// Amounts and dates as a payer reads them, in the language of the page or email. Amounts are
// formatted from their exact decimal text (Intl formats decimal strings without going through a float).
import { findCurrency } from '../domain/currency.js';
import { formatAmount } from '../domain/money.js';
import type { Messages } from './words.js';

/** Banks and payers in Chile read times in Santiago's zone. */
const ZONE = 'America/Santiago';

export function formatMoney(units: number, currency: string, m: Messages): string {
  const decimals = findCurrency(currency)?.decimals ?? 2;
  const format = new Intl.NumberFormat(m.locale, { style: 'currency', currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return format.format(formatAmount(units) as `${number}`);
}

export function formatInstant(instant: Date, m: Messages): string {
  return new Intl.DateTimeFormat(m.locale, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: ZONE,
    timeZoneName: 'short',
  }).format(instant);
}

/** A date as lists show it, "26 nov · 18:01" (Santiago, 24-hour clock): the year and zone are in formatInstant's long form. */
export function formatShortInstant(instant: Date, m: Messages): string {
  const day = new Intl.DateTimeFormat(m.locale, { day: 'numeric', month: 'short', timeZone: ZONE }).format(instant);
  const time = new Intl.DateTimeFormat(m.locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: ZONE }).format(instant);
  return `${day} · ${time}`;
}
