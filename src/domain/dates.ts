// Date-time values as clients send them: ISO 8601 with an offset (`2017-03-01T13:00:00Z`,
// `...T13:00:00.000Z`, `...T13:00:00-03:00`, `...T13:00:00+0000` as the PHP client writes it) and
// `2017-03-01 13:00:00 -0300` as older clients do. A value without a zone is refused: it would
// be read differently by client and server.

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)$/;

export function parseDateTime(text: string): Date | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '0', frac = '0', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone!.startsWith('-') ? -1 : 1;
    const digits = zone!.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
    if (Math.abs(offsetMinutes) > 18 * 60) return undefined;
  }
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000;
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCDate() !== day) return undefined; // 2017-02-30 and the like
  return new Date(utc);
}

export function formatDateTime(instant: Date | number): string {
  return new Date(instant).toISOString();
}
