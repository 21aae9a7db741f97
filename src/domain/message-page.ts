// The outbox's messages (events, emails) are listed a page at a time, newest first: a page that
// has a next one ends with its cursor (page-cursor.ts).
import { FieldErrors } from './errors.js';
import { decodePageCursor } from './page-cursor.js';

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

/** Where a page starts and how long it is; a bad cursor and a bad limit are named together. */
export function pageOf(request: PageRequest): Page {
  const errors = new FieldErrors();
  const after = request.cursor === undefined ? undefined : decodePageCursor(request.cursor);
  if (request.cursor !== undefined && !after) errors.add('cursor', 'is not a cursor this listing gave');
  if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > MAX_PAGE_SIZE) errors.add('limit', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  errors.throwIfAny();
  return { before: after && { createdAt: after.at, messageId: after.id }, limit: request.limit };
}
