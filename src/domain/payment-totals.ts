// The dashboard's figures: payments created per day and currency, how many of them are paid and
// for how much. The database groups by hour since a start; the hours are folded into days as they
// are in Santiago, whose offsets from UTC are whole hours, so no hour straddles two local days.

const ZONE = 'America/Santiago';
export const HOUR_MS = 3_600_000;

const localDate = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });

/** YYYY-MM-DD of an instant in Santiago. */
export const dayOf = (instantMs: number) => localDate.format(instantMs);

export interface HourTotal {
  /** Hours since the start of the query. */
  hour: number;
  currency: string;
  paid: boolean;
  count: number;
  amount: number;
}

export interface DayTotal {
  day: string;
  created: number;
  paid: number;
  /** Units of 1/10000 of the currency. */
  amountPaid: number;
}

export interface CurrencyTotals {
  currency: string;
  today: DayTotal;
  period: DayTotal;
  /** Every day of the period, oldest first, days without payments included. */
  days: DayTotal[];
}

/** The `count` local days ending today: the first one's start on the hour, where the query begins. */
export function periodStart(nowMs: number, count: number): number {
  const first = dayOf(nowMs - (count - 1) * 24 * HOUR_MS);
  let start = Math.floor(nowMs / HOUR_MS) * HOUR_MS - (count + 1) * 24 * HOUR_MS;
  while (dayOf(start) < first) start += HOUR_MS;
  return start;
}

const empty = (day: string): DayTotal => ({ day, created: 0, paid: 0, amountPaid: 0 });

function add(into: DayTotal, row: HourTotal): void {
  into.created += row.count;
  if (row.paid) {
    into.paid += row.count;
    into.amountPaid += row.amount;
  }
}

/** Per currency (most payments first), the days from `startMs` to `nowMs`. */
export function foldTotals(rows: readonly HourTotal[], startMs: number, nowMs: number): CurrencyTotals[] {
  const days: string[] = [];
  for (let at = startMs; at <= nowMs; at += HOUR_MS) if (days.at(-1) !== dayOf(at)) days.push(dayOf(at));
  const today = dayOf(nowMs);
  const byCurrency = new Map<string, CurrencyTotals>();
  for (const row of rows) {
    let totals = byCurrency.get(row.currency);
    if (!totals) {
      totals = { currency: row.currency, today: empty(today), period: empty(days[0]!), days: days.map(empty) };
      byCurrency.set(row.currency, totals);
    }
    const day = dayOf(startMs + row.hour * HOUR_MS);
    const slot = totals.days.find((d) => d.day === day);
    if (!slot) continue;
    add(slot, row);
    add(totals.period, row);
    if (day === today) add(totals.today, row);
  }
  return [...byCurrency.values()].sort((a, b) => b.period.created - a.period.created || a.currency.localeCompare(b.currency));
}
