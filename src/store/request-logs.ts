// The request log's rows (migration 030), in the API's database (REQUEST_LOG_STORE=database) or in
// the same table of a file of its own (request-log-file.ts): written in batches by app/request-log.ts,
// read newest first per account by the dashboard, in id order across accounts by `quipu listen`,
// pruned by age, forgotten with their account.
import { CompiledQuery, type Kysely } from 'kysely';
import { dialectOf } from './database.js';
import type { DB, NewRequestLogRow, RequestLogRow } from './schema.js';
import { nameStatement } from './statement-names.js';

const COLUMNS = ['receiver_id', 'at', 'method', 'path', 'status', 'duration_ms', 'request_id', 'ignored_fields', 'error_body'] as const;
const TYPES = ['bigint', 'bigint', 'text', 'text', 'integer', 'integer', 'text', 'text', 'text'] as const;

/**
 * One statement whose SQL never changes, however many rows: the rows travel as one JSON array of
 * arrays, which the database takes apart (a VALUES list of a few thousand rows cost Kysely
 * milliseconds to build and the server as long to parse, on every batch).
 */
export const APPEND_REQUEST_LOGS = `insert into request_logs (${COLUMNS.join(', ')}) select ${COLUMNS.map((_, i) => `value ->> ${i}`).join(', ')} from jsonb_each(?)`;

/**
 * In the API's database, only the rows of accounts that still exist go in, so a deletion leaves
 * nothing of the account behind. On PostgreSQL each account is locked (KEY SHARE) until the insert
 * commits: a deletion, which locks its account first (account-records.ts) and forgets its rows once
 * it has committed, either finds these rows there, or has deleted the account before they are looked for.
 */
const INSERT = {
  sqlite: `${APPEND_REQUEST_LOGS}
    where (value ->> 0) in (select receiver_id from merchants)`,
  // Each account locked once, not once a row: the rows of a batch are mostly of a few accounts.
  postgres: `with batch as (select r from json_array_elements($1::json) r),
      live as (select receiver_id from merchants where receiver_id in (select distinct (r ->> 0)::bigint from batch) for key share)
    insert into request_logs (${COLUMNS.join(', ')}) select ${TYPES.map((type, i) => `(r ->> ${i})::${type}`).join(', ')} from batch
    where (r ->> 0)::bigint in (select receiver_id from live)`,
};
nameStatement(INSERT.postgres);

/** The rows as the one parameter of the statements above. */
export const requestLogsJson = (rows: readonly NewRequestLogRow[]) => JSON.stringify(rows.map((row) => COLUMNS.map((column) => row[column])));

/** Inserts the rows of accounts that still exist, in one statement: the API's database, which holds the accounts. */
export async function insertRequestLogs(db: Kysely<DB>, rows: readonly NewRequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.executeQuery(CompiledQuery.raw(INSERT[dialectOf(db)], [requestLogsJson(rows)]));
}

/** Deletes every row of these accounts. */
export async function forgetRequestLogs(db: Kysely<DB>, receiverIds: readonly number[]): Promise<void> {
  if (receiverIds.length === 0) return;
  await db.deleteFrom('request_logs').where('receiver_id', 'in', receiverIds).execute();
}

export interface RequestLogFilter {
  /** Only answers with a status of 400 or more. */
  errors?: boolean;
  /** Only requests some of whose fields were ignored. */
  ignored?: boolean;
  /** Only rows older than this one (a page's cursor). */
  before?: number;
  limit: number;
}

/** The account's rows, newest first. */
export async function accountRequestLogs(db: Kysely<DB>, receiverId: number, filter: RequestLogFilter): Promise<RequestLogRow[]> {
  return db
    .selectFrom('request_logs')
    .selectAll()
    .where('receiver_id', '=', receiverId)
    .$if(filter.errors === true, (q) => q.where('status', '>=', 400))
    .$if(filter.ignored === true, (q) => q.where('ignored_fields', 'is not', null))
    .$if(filter.before !== undefined, (q) => q.where('request_log_id', '<', filter.before!))
    .orderBy('request_log_id', 'desc')
    .limit(filter.limit)
    .execute();
}

export async function findRequestLog(db: Kysely<DB>, id: number): Promise<RequestLogRow | undefined> {
  return db.selectFrom('request_logs').selectAll().where('request_log_id', '=', id).executeTakeFirst();
}

export async function lastRequestLogId(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('request_logs')
    .select((eb) => eb.fn.max('request_log_id').as('last'))
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/** In id order, at most `limit`: the rows after `afterId`, and those of `ids` (ids passed over before, which may have committed late). */
export async function listRequestLogsAfter(db: Kysely<DB>, afterId: number, ids: readonly number[], limit: number): Promise<RequestLogRow[]> {
  return db
    .selectFrom('request_logs')
    .selectAll()
    .where((eb) => eb.or([eb('request_log_id', '>', afterId), ...(ids.length > 0 ? [eb('request_log_id', 'in', ids)] : [])]))
    .orderBy('request_log_id')
    .limit(limit)
    .execute();
}

/**
 * Up to `limit` of the rows answered before `before`, oldest first; how many went. Ids grow with
 * time, so the scan walks the primary key from its oldest end and stops once it has `limit`: no
 * index on `at` costs every insert for a pruning that runs once an hour.
 */
export async function pruneRequestLogBatch(db: Kysely<DB>, before: number, limit: number): Promise<number> {
  const oldest = db.selectFrom('request_logs').select('request_log_id').where('at', '<', before).orderBy('request_log_id').limit(limit);
  const result = await db.deleteFrom('request_logs').where('request_log_id', 'in', oldest).executeTakeFirst();
  return Number(result.numDeletedRows);
}
