// Which of an account's payments a listing shows, newest first, a page at a time: read from the text
// a client sends (query string, command line, dashboard form), every bad parameter named at once.
// The store turns a filter into one query (store/payment-list.ts); docs/payment-list.md.
import { type LocalDate, startOfDay } from './business-days.js';
import { parseDateTime } from './dates.js';
import { FieldErrors } from './errors.js';
import { pageStart } from './message-page.js';
import type { PagePosition } from './page-cursor.js';
import { PAYMENT_STATUSES, type PaymentStatus, STATUS_DETAILS, type StatusDetail } from './payment-status.js';

export const DEFAULT_PAYMENT_PAGE = 50;
export const MAX_PAYMENT_PAGE = 100;
export const MAX_SEARCH_LENGTH = 100;

export interface PaymentFilter {
  status?: PaymentStatus;
  statusDetail?: StatusDetail;
  /** Created at or after. */
  from?: Date;
  /** Created before. */
  to?: Date;
  /** Text found, whatever its case, in the subject, payment_id, transaction_id or payer email. */
  q?: string;
  /** Only payments that come after this one in the listing's order: the previous page's last. */
  after?: PagePosition;
  limit: number;
}

/** A listing as a client asks for it, in text; a parameter sent empty is taken as absent, as HTML forms send them. */
export interface PaymentListQuery {
  status?: string;
  status_detail?: string;
  from?: string;
  to?: string;
  q?: string;
  limit?: string;
  cursor?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// The store joins the searched fields with U+001F: a search holding it could match across two.
const CONTROL = /[\u0000-\u001f\u007f]/;

function localDate(text: string): LocalDate | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const check = new Date(Date.UTC(year, month - 1, day));
  return check.getUTCMonth() === month - 1 && check.getUTCDate() === day ? { year, month, day } : undefined;
}

/** A date is the day in Chile's time (America/Santiago): from its first instant. */
function instantOf(text: string): Date | undefined {
  const date = localDate(text);
  return date ? startOfDay(date) : parseDateTime(text);
}

/** The filter a listing asks for; a validation error names every bad parameter at once. */
export function parsePaymentFilter(query: PaymentListQuery): PaymentFilter {
  const errors = new FieldErrors();
  const given = (name: keyof PaymentListQuery) => (query[name] === '' ? undefined : query[name]);
  const oneOf = <T extends string>(name: keyof PaymentListQuery, values: readonly T[]): T | undefined => {
    const value = given(name);
    if (value !== undefined && !(values as readonly string[]).includes(value)) errors.add(name, `must be one of ${values.join(', ')}`);
    return value as T | undefined;
  };
  const instant = (name: 'from' | 'to') => {
    const text = given(name);
    if (text === undefined) return undefined;
    const value = instantOf(text);
    if (!value) errors.add(name, 'must be a date (YYYY-MM-DD, a day in Chile) or an ISO 8601 date-time with a time zone');
    return value;
  };

  const status = oneOf('status', PAYMENT_STATUSES);
  const statusDetail = oneOf('status_detail', STATUS_DETAILS);
  const from = instant('from');
  const to = instant('to');
  if (from && to && to <= from) errors.add('to', 'must be after from');
  const q = given('q')?.trim() || undefined;
  if (q !== undefined && q.length > MAX_SEARCH_LENGTH) errors.add('q', `must be at most ${MAX_SEARCH_LENGTH} characters long`);
  if (q !== undefined && CONTROL.test(q)) errors.add('q', 'must not contain control characters');
  const limitText = given('limit');
  const limit = limitText === undefined ? DEFAULT_PAYMENT_PAGE : /^\d+$/.test(limitText) ? Number(limitText) : Number.NaN;
  const after = pageStart(errors, { cursor: given('cursor'), limit }, MAX_PAYMENT_PAGE);
  errors.throwIfAny();
  return { status, statusDetail, from, to, q, after, limit };
}
