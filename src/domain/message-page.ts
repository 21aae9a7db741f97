// The outbox's messages (events, emails) are listed a page at a time, newest first: a page that
// has a next one ends with its cursor (page-cursor.ts). Payments are paged the same way (payment-filter.ts).
import { FieldErrors } from './errors.js';
import { decodePageCursor, type PagePosition } from './page-cursor.js';

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 100;

export interface PageRequest {
  /** next_cursor of the previous page. */
  cursor?: string;
  limit: number;
}

export interface Page {
  /** Only messages older than the previous page's last. */
  before?: { createdAt: number; messageId: string };
  limit: number;
}

/**
 * Where a page starts (the position its cursor names), with a bad cursor and a bad limit added to
 * `errors`, so that a listing names them together with its other parameters.
 */
export function pageStart(errors: FieldErrors, request: PageRequest, maxLimit = MAX_PAGE_SIZE): PagePosition | undefined {
  const after = request.cursor === undefined ? undefined : decodePageCursor(request.cursor);
  if (request.cursor !== undefined && !after) errors.add('cursor', 'is not a cursor this listing gave');
  if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > maxLimit) errors.add('limit', `must be a whole number from 1 to ${maxLimit}`);
  return after;
}

/** Where a page starts and how long it is; a bad cursor and a bad limit are named together. */
export function pageOf(request: PageRequest): Page {
  const errors = new FieldErrors();
  const after = pageStart(errors, request);
  errors.throwIfAny();
  return { before: after && { createdAt: after.at, messageId: after.id }, limit: request.limit };
}
