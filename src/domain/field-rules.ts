// Field rules as data: one table per request describes each field's kind, presence and length.
// The HTTP schemas are generated from the same tables, and `decodeFields` applies them to values
// that arrive as JSON (typed) or as form text (v2), so a rule is written once.
import { parseDateTime } from './dates.js';
import type { FieldErrors } from './errors.js';
import { isEmail, isRedirectUrl, isWebUrl } from './formats.js';
import { numberToDecimalText } from './money.js';

/** `text-or-number`: text, or a JSON number taken as its decimal text (an account number written unquoted). */
export type FieldKind = 'amount' | 'string' | 'text-or-number' | 'web-url' | 'redirect-url' | 'email' | 'date-time' | 'boolean';

export interface FieldRule {
  kind: FieldKind;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  enum?: readonly string[];
  description?: string;
  /**
   * Checks that are Quipu's own, beyond the contract and the provider's schema: a value that breaks
   * them is accepted, as the provider would, and named as a doubt. `true`: the length and format
   * checks; `'format'`: the format only, where the lengths are the provider's (a picture_url of any
   * text, but at most its 1024 characters).
   */
  lenient?: boolean | 'format';
}

export type FieldTable = Readonly<Record<string, FieldRule>>;

export type RawValue = string | number | boolean | null | undefined;

/** What a decoded field holds: amounts stay decimal text until their currency is known. */
export type Decoded = string | boolean | Date;

/** Booleans as form text, spelled as the v2 clients write them: Ruby and Java `true`, PHP `1`, .NET `True`. */
export const FORM_BOOLEANS: Readonly<Record<string, boolean>> = { true: true, false: false, '1': true, '0': false, True: true, False: false };

function decodeBoolean(value: RawValue): boolean | undefined {
  if (typeof value === 'boolean') return value;
  return typeof value === 'string' && Object.hasOwn(FORM_BOOLEANS, value) ? FORM_BOOLEANS[value] : undefined;
}

/** Characters as JSON Schema counts them: code points, so an emoji is one (UTF-16 counts two). */
function lengthOf(value: string): number {
  let length = value.length;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

type Outcome = { value: Decoded; doubt?: string } | { error: string };

/**
 * What a text value breaks of the rule's lengths. Code points are counted only where UTF-16 units
 * could say otherwise: never for a value within a maximum and no minimum (a megabyte `custom` is
 * not walked on every create).
 */
function lengthProblem(rule: FieldRule, value: string): string | undefined {
  const length = rule.minLength === undefined && (rule.maxLength === undefined || value.length <= rule.maxLength) ? value.length : lengthOf(value);
  if (rule.minLength !== undefined && length < rule.minLength) return `must be at least ${rule.minLength} characters long`;
  if (rule.maxLength !== undefined && length > rule.maxLength) return `must be at most ${rule.maxLength} characters long`;
  return undefined;
}

/** What a text value breaks of the rule's enum and format, or its decoded value. */
function checkFormat(rule: FieldRule, value: string): { value: Decoded } | { error: string } {
  if (rule.enum && !rule.enum.includes(value)) return { error: `must be one of ${rule.enum.join(', ')}` };
  switch (rule.kind) {
    case 'email':
      return isEmail(value) ? { value } : { error: 'must be an email address' };
    case 'web-url':
      return isWebUrl(value) ? { value } : { error: 'must be an absolute http or https URL' };
    case 'redirect-url':
      return isRedirectUrl(value) ? { value } : { error: 'must be an absolute URL' };
    case 'date-time': {
      const date = parseDateTime(value);
      return date ? { value: date } : { error: 'must be an ISO 8601 date-time with a time zone' };
    }
    default:
      return { value };
  }
}

function decodeOne(rule: FieldRule, value: string | number | boolean): Outcome {
  switch (rule.kind) {
    case 'boolean': {
      const b = decodeBoolean(value);
      return b === undefined ? { error: 'must be a boolean (true or false)' } : { value: b };
    }
    case 'amount': {
      const text = typeof value === 'number' ? numberToDecimalText(value) : typeof value === 'string' ? value.trim() : undefined;
      return text === undefined ? { error: 'must be a number' } : { value: text };
    }
    case 'text-or-number':
      // Digits beyond a double's exact integers were already changed by the JSON parser: the
      // account number read would be another one.
      if (typeof value === 'number') {
        if (!Number.isSafeInteger(value) || value < 0) return { error: 'as a JSON number must be a whole number below 2^53: send it as a string' };
        value = String(value);
      }
      break;
    default:
      break;
  }
  if (typeof value !== 'string') return { error: rule.kind === 'text-or-number' ? 'must be a string or a number' : 'must be a string' };
  // The first problem found is the one named, as for errors; a doubtful value is kept as sent.
  const length = lengthProblem(rule, value);
  if (length !== undefined) return rule.lenient === true ? { value, doubt: length } : { error: length };
  const checked = checkFormat(rule, value);
  if ('error' in checked && rule.lenient) return { value, doubt: checked.error };
  return checked;
}

/**
 * Empty text in a required text field is a value, the empty one (the provider's schema takes it),
 * and a doubt; a table bars it with `minLength` where emptiness is unsafe. Empty text is no amount,
 * date, boolean, email, URL or enum value: absent, as in an optional field.
 */
const isEmptyText = (rule: FieldRule, value: RawValue) => value === '' && rule.required === true && rule.kind === 'string' && rule.enum === undefined;

/**
 * Applies a field table to raw input. Unknown fields are refused (the HTTP surfaces ignore them
 * before: http/ignored-fields.ts); absent optional fields, explicit nulls and empty values are left
 * out of the result, but for `isEmptyText`. Every problem is added to `errors`.
 */
export function decodeFields(table: FieldTable, raw: Readonly<Record<string, RawValue>>, errors: FieldErrors): Map<string, Decoded> {
  const out = new Map<string, Decoded>();
  for (const field of Object.keys(raw)) {
    if (!(field in table)) errors.add(field, 'is not a known field');
  }
  for (const [field, rule] of Object.entries(table)) {
    const value = raw[field];
    // Clients of the v2 libraries send every field, unset ones as empty text: empty means absent.
    if (value === undefined || value === null || (value === '' && !isEmptyText(rule, value))) {
      if (rule.required) errors.add(field, 'is required');
      continue;
    }
    const result = decodeOne(rule, value);
    if ('error' in result) errors.add(field, result.error);
    else {
      out.set(field, result.value);
      const doubt = value === '' ? 'is empty' : result.doubt;
      if (doubt !== undefined) errors.doubt(field, doubt);
    }
  }
  return out;
}

export function text(fields: Map<string, Decoded>, name: string): string | undefined {
  const v = fields.get(name);
  return typeof v === 'string' ? v : undefined;
}

export function flagValue(fields: Map<string, Decoded>, name: string): boolean {
  return fields.get(name) === true;
}

export function dateValue(fields: Map<string, Decoded>, name: string): Date | undefined {
  const v = fields.get(name);
  return v instanceof Date ? v : undefined;
}
