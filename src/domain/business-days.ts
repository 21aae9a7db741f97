// Business days of the provider's country (Chile): Monday to Friday except national holidays.
// Dates are counted in America/Santiago, where the banks settle.

const ZONE = 'America/Santiago';
/** Funds of a settlement day are delivered at this local hour. */
const SETTLEMENT_HOUR = 10;

interface LocalDate {
  year: number;
  month: number; // 1-12
  day: number;
}

const dateParts = new Intl.DateTimeFormat('en-US', {
  timeZone: ZONE,
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hourCycle: 'h23',
});

function localParts(instant: Date): LocalDate & { hour: number; minute: number; second: number } {
  const parts: Record<string, number> = {};
  for (const p of dateParts.formatToParts(instant)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** Easter Sunday (Anonymous Gregorian algorithm). */
function easter(year: number): LocalDate {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return { year, month, day };
}

function shift(date: LocalDate, days: number): LocalDate {
  const t = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

// National holidays on fixed dates, plus Good Friday and Holy Saturday. Holidays the law moves to
// a Monday each year are not modelled: on those days settlement happens one day early.
const FIXED_HOLIDAYS = ['01-01', '05-01', '05-21', '07-16', '08-15', '09-18', '09-19', '11-01', '12-08', '12-25'];

export function isHoliday(date: LocalDate): boolean {
  const key = `${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
  if (FIXED_HOLIDAYS.includes(key)) return true;
  const sunday = easter(date.year);
  return [shift(sunday, -2), shift(sunday, -1)].some((h) => h.month === date.month && h.day === date.day);
}

export function isBusinessDay(date: LocalDate): boolean {
  const weekday = new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !isHoliday(date);
}

/** The instant of `SETTLEMENT_HOUR` local time on `date` in Santiago. */
function settlementInstant(date: LocalDate): Date {
  const guess = Date.UTC(date.year, date.month - 1, date.day, SETTLEMENT_HOUR);
  // The zone's offset at that moment: format the guess locally and compare.
  const local = localParts(new Date(guess));
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return new Date(guess - (asUtc - guess));
}

/** When funds confirmed at `instant` are delivered: the next business day after it, at settlement time. */
export function nextBusinessDay(instant: Date): Date {
  let date = shift(localParts(instant), 1);
  while (!isBusinessDay(date)) date = shift(date, 1);
  return settlementInstant(date);
}
