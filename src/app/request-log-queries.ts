// Reading the request log where it is kept (app/request-records.ts): an account sees its own rows,
// newest first, a page at a time; another account's row is as unknown as one never written.
import { notFound } from '../domain/errors.js';
import type { RequestLogFilter } from '../store/request-logs.js';
import type { RequestLogRow } from '../store/schema.js';
import type { KeptRequestRecords, RequestRecords } from './request-records.js';

export interface RequestLogPage {
  rows: RequestLogRow[];
  /** The `before` of the next page; null on the last page. */
  nextBefore: number | null;
}

export async function requestLogPage(kept: KeptRequestRecords, receiverId: number, filter: RequestLogFilter): Promise<RequestLogPage> {
  // One more than asked tells whether another page follows.
  const found = await kept.ofAccount(receiverId, { ...filter, limit: filter.limit + 1 });
  const rows = found.slice(0, filter.limit);
  return { rows, nextBefore: found.length > filter.limit ? rows.at(-1)!.request_log_id : null };
}

/** Not found as well where the log is not kept for Quipu to read (the log stream, off). */
export async function getRequestLog(records: RequestRecords, receiverId: number, id: number): Promise<RequestLogRow> {
  const row = records.kept && Number.isSafeInteger(id) ? await records.kept.find(id) : undefined;
  if (!row || Number(row.receiver_id) !== receiverId) throw notFound('Request');
  return row;
}

/** A row as `quipu listen --json` prints it. */
export function requestLogView(row: RequestLogRow) {
  return {
    id: Number(row.request_log_id),
    receiver_id: Number(row.receiver_id),
    at: new Date(Number(row.at)).toISOString(),
    method: row.method,
    path: row.path,
    status: row.status,
    duration_ms: row.duration_ms,
    request_id: row.request_id,
    ignored_fields: row.ignored_fields,
    error_body: row.error_body,
  };
}
