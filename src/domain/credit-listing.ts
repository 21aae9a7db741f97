// Listing recorded credits a page at a time, the most recently recorded first, however many there
// are. A page ends with a cursor naming its last credit (when it was recorded, and its id): the
// next page starts after it, so credits recorded meanwhile neither shift nor repeat a page.
import type { CreditStatus } from './bank-credit.js';
import { parseDateTime } from './dates.js';
import { FieldErrors } from './errors.js';

export const MAX_CREDIT_PAGE = 1000;

export interface CreditPosition {
  recordedAt: number;
  creditId: string;
}

export interface CreditFilter {
  status?: CreditStatus;
  /** The credited account, as the credit names it. */
  account?: string;
  /** Credited at or after (the bank's date of the movement). */
  creditedFrom?: Date;
  /** Credited before. */
  creditedTo?: Date;
}

/** A listing as an operator asks for it, in text (query string or command line). */
export interface CreditListingRequest {
  status?: CreditStatus;
  account?: string;
  creditedFrom?: string;
  creditedTo?: string;
  cursor?: string;
  limit: number;
}

export interface CreditQuery {
  filter: CreditFilter;
  after?: CreditPosition;
  limit: number;
}

export function encodeCreditCursor(position: CreditPosition): string {
  return Buffer.from(JSON.stringify([position.recordedAt, position.creditId])).toString('base64url');
}

function decodeCreditCursor(cursor: string): CreditPosition | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string')
      return { recordedAt: value[0], creditId: value[1] };
  } catch {
    // Not JSON: not a cursor this listing gave.
  }
  return undefined;
}

/** Reads a listing request; every bad field is named at once. */
export function creditQuery(request: CreditListingRequest): CreditQuery {
  const errors = new FieldErrors();
  const date = (field: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const value = parseDateTime(text);
    if (!value) errors.add(field, 'must be an ISO 8601 date-time with a time zone');
    return value;
  };
  const creditedFrom = date('credited_from', request.creditedFrom);
  const creditedTo = date('credited_to', request.creditedTo);
  const after = request.cursor === undefined ? undefined : decodeCreditCursor(request.cursor);
  if (request.cursor !== undefined && !after) errors.add('cursor', 'is not a cursor this listing gave');
  if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > MAX_CREDIT_PAGE)
    errors.add('limit', `must be a whole number from 1 to ${MAX_CREDIT_PAGE}`);
  errors.throwIfAny();
  return { filter: { status: request.status, account: request.account, creditedFrom, creditedTo }, after, limit: request.limit };
}
