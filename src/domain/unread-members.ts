// Members a request carries that Quipu cannot read. Where the provider's schemas allow unknown
// members they are ignored (http/ignored-fields.ts), but on a request that moves money an absent
// member has a meaning of its own: a refund without `amount` refunds everything. So an unknown
// member beside a missing money member may be that member misspelled (`amout`), and the request is
// refused rather than read as the costliest thing it could mean.
import { distance } from 'fastest-levenshtein';
import type { FieldError } from './errors.js';

/** Typos seen in the wild are one or two keystrokes off; more than that is another word. */
const MAX_EDITS = 2;
/** Below this length two edits turn any short name into another (`body` → `bank`): one is allowed. */
const SHORT_NAME = 6;

/** Case and separators do not tell two member names apart to a person (`notifyUrl`, `notify-url`). */
function folded(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, '');
}

/**
 * The known member an unknown one most likely misspells, if one is close: the same once case and
 * separators are dropped, or one or two edits away (one for short names). Names far longer than
 * any known one are never compared, so a megabyte-long name costs nothing.
 */
export function likelyTypo(name: string, known: Iterable<string>): string | undefined {
  const wanted = folded(name);
  let best: { name: string; edits: number } | undefined;
  for (const candidate of known) {
    const target = folded(candidate);
    const allowed = target.length < SHORT_NAME ? 1 : MAX_EDITS;
    if (Math.abs(wanted.length - target.length) > allowed) continue;
    const edits = distance(wanted, target);
    if (edits <= allowed && (best === undefined || edits < best.edits)) best = { name: candidate, edits };
  }
  return best?.name;
}

/** How an unknown member is named in a refusal: with the member it probably meant, if any. */
export function unknownMemberError(name: string, known: Iterable<string>): FieldError {
  const meant = likelyTypo(name, known);
  return { field: name, message: meant === undefined ? 'is not a known field' : `is not a known field (did you mean ${meant}?)` };
}

/**
 * The refusal of a money-moving request that carries unknown members while a member it acts on is
 * missing (every unknown member and every missing one named), or nothing when it can be read as it
 * stands: every money member given, or nothing unknown beside them.
 */
export function unreadMoneyRequest(unknown: readonly string[], missing: readonly string[], known: Iterable<string>): FieldError[] {
  if (unknown.length === 0 || missing.length === 0) return [];
  const names = [...known];
  return [
    ...unknown.map((name) => unknownMemberError(name, names)),
    ...missing.map((name) => ({
      field: name,
      message: 'is required when the request carries a member Quipu cannot read: it moves money, and that member may be this one misspelled',
    })),
  ];
}
