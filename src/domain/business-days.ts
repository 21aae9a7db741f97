// Business days of the provider's country (Chile): Monday to Friday except national holidays and
// December 31, when banks close to end their year. Dates are counted in America/Santiago, where the
// banks settle. Holidays are rules, not a list, so no year runs out of them. Election days are
// holidays too but always fall on a weekend; a holiday made by a one-off law must be added here.

const ZONE = 'America/Santiago';
/** Funds of a settlement day are delivered at this local hour. */
const SETTLEMENT_HOUR = 10;

export interface LocalDate {
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

/** The date and time that Santiago's clocks show at `instant`. */
export function localParts(instant: Date): LocalDate & { hour: number; minute: number; second: number } {
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

const on = (year: number, month: number, day: number): LocalDate => ({ year, month, day });
const isoDate = (date: LocalDate): string => `${date.year}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;

const [SUNDAY, MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY] = [0, 1, 2, 3, 4, 5, 6];
const weekday = (date: LocalDate): number => new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();

/** Law 19.668: a holiday on a Tuesday, Wednesday or Thursday moves to that week's Monday, on a Friday to the next Monday. */
function toMonday(date: LocalDate): LocalDate {
  const day = weekday(date);
  if (day === FRIDAY) return shift(date, 3);
  return day >= TUESDAY && day <= THURSDAY ? shift(date, MONDAY - day) : date;
}

/** Law 20.299: October 31 on a Tuesday moves to the Friday before, on a Wednesday to the Friday after. */
function evangelicalChurchesDay(year: number): LocalDate {
  const date = on(year, 10, 31);
  const day = weekday(date);
  return day === TUESDAY ? shift(date, -4) : day === WEDNESDAY ? shift(date, 2) : date;
}

/**
 * Law 21.357: the day of the southern winter solstice in Chile's time (June 21 in 2021, the first
 * year, by the law itself). The solstice comes about 6 hours later each year, 18 hours earlier
 * after a leap day, and drifts some 45 minutes earlier every four years: from 2022 to 2046 it falls
 * on June 21 in the two years before a leap year, from 2047 to 2075 only in the year before one,
 * and on June 20 from 2076 to 2099.
 */
function indigenousPeoplesDay(year: number): LocalDate {
  const june21 = year === 2021 || (year % 4 >= 2 && year <= 2046) || (year % 4 === 3 && year <= 2075);
  return on(year, 6, june21 ? 21 : 20);
}

// National holidays on fixed dates (Laws 2.977, 2.200 and 20.148), and the bank holiday.
const FIXED: readonly (readonly [month: number, day: number])[] = [
  [1, 1],
  [5, 1],
  [5, 21],
  [7, 16],
  [8, 15],
  [9, 18],
  [9, 19],
  [11, 1],
  [12, 8],
  [12, 25],
  [12, 31],
];

/** The days of `year` banks are closed for a holiday, as YYYY-MM-DD in date order (those on a weekend too). */
export function chileanHolidays(year: number): string[] {
  const sunday = easter(year);
  const days: LocalDate[] = [
    ...FIXED.map(([month, day]) => on(year, month, day)),
    shift(sunday, -2), // Good Friday
    shift(sunday, -1), // Holy Saturday
    toMonday(on(year, 6, 29)), // Saint Peter and Saint Paul
    toMonday(on(year, 10, 12)), // Encuentro de Dos Mundos
    evangelicalChurchesDay(year),
  ];
  if (year >= 2021) days.push(indigenousPeoplesDay(year));
  // Long weekends. Law 20.983: January 2 when January 1 is a Sunday, September 17 when the 18th
  // and 19th fall on the weekend. Law 20.215: September 17 on a Monday, September 20 on a Friday.
  if (weekday(on(year, 1, 2)) === MONDAY) days.push(on(year, 1, 2));
  if ([MONDAY, FRIDAY].includes(weekday(on(year, 9, 17)))) days.push(on(year, 9, 17));
  if (weekday(on(year, 9, 20)) === FRIDAY) days.push(on(year, 9, 20));
  return [...new Set(days.map(isoDate))].sort();
}

// Asked for every payment reconciled: each year's holidays and each day's settlement instant are
// worked out once per process (a few hundred entries a year).
const holidaysByYear = new Map<number, ReadonlySet<string>>();
const settlementByDate = new Map<string, Date>();

export function isBusinessDay(date: LocalDate): boolean {
  const day = weekday(date);
  if (day === SUNDAY || day === SATURDAY) return false;
  let holidays = holidaysByYear.get(date.year);
  if (!holidays) holidaysByYear.set(date.year, (holidays = new Set(chileanHolidays(date.year))));
  return !holidays.has(isoDate(date));
}

/** How far Santiago's clocks are from UTC at `instant` (whole seconds), in milliseconds: format it locally and compare. */
function zoneOffset(instant: number): number {
  const local = localParts(new Date(instant));
  return Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - instant;
}

/** The instant of `SETTLEMENT_HOUR` local time on `date` in Santiago. */
function settlementInstant(date: LocalDate): Date {
  const guess = Date.UTC(date.year, date.month - 1, date.day, SETTLEMENT_HOUR);
  return new Date(guess - zoneOffset(guess));
}

const sameDate = (a: LocalDate, b: LocalDate) => a.year === b.year && a.month === b.month && a.day === b.day;

/**
 * The first instant of `date` in Santiago. Chile moves its clocks at midnight: the day that
 * skips an hour starts at 01:00, and midnight of the day that repeats one is taken with the
 * offset after the change. Of the instants the offsets before and after give, the earliest that
 * falls on `date`.
 */
export function startOfDay(date: LocalDate): Date {
  const guess = Date.UTC(date.year, date.month - 1, date.day);
  const before = guess - zoneOffset(guess);
  const after = guess - zoneOffset(before);
  const onDate = [before, after].filter((t) => sameDate(localParts(new Date(t)), date));
  return new Date(Math.min(...onDate));
}

/** When funds confirmed at `instant` are delivered: the next business day after it, at settlement time. */
export function nextBusinessDay(instant: Date): Date {
  let date = shift(localParts(instant), 1);
  while (!isBusinessDay(date)) date = shift(date, 1);
  const key = isoDate(date);
  let settlement = settlementByDate.get(key);
  if (!settlement) settlementByDate.set(key, (settlement = settlementInstant(date)));
  return new Date(settlement);
}
