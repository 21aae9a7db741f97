// Durations as people type them for the developer clock: `90s`, `5m`, `3h`, `2d`, or combined
// (`1d12h`). Units: s, m, h, d.

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Ten years: enough to reach any expiry, small enough to stay an exact integer. */
const MAX_MS = 3650 * UNIT_MS.d!;

export type DurationParse = { ok: true; ms: number } | { ok: false; reason: string };

export function parseDuration(text: string): DurationParse {
  const trimmed = text.trim().toLowerCase();
  if (!/^(\d+[smhd])+$/.test(trimmed)) return { ok: false, reason: 'must be a duration such as 90s, 5m, 3h, 2d or 1d12h' };
  let ms = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([smhd])/g)) {
    ms += Number(amount) * UNIT_MS[unit!]!;
    if (ms > MAX_MS) return { ok: false, reason: 'must be at most 3650 days' };
  }
  if (ms === 0) return { ok: false, reason: 'must be greater than zero' };
  return { ok: true, ms };
}

/** An offset from real time as people read it: `+2d 3h`, `+90s` read as `+1m 30s`, `0`; whole seconds. */
export function formatOffset(ms: number): string {
  let rest = Math.floor(Math.abs(ms) / UNIT_MS.s!);
  if (rest === 0) return '0';
  const parts: string[] = [];
  for (const unit of ['d', 'h', 'm', 's']) {
    const size = UNIT_MS[unit]! / UNIT_MS.s!;
    if (rest >= size) parts.push(`${Math.floor(rest / size)}${unit}`);
    rest %= size;
  }
  return `${ms < 0 ? '-' : '+'}${parts.join(' ')}`;
}
