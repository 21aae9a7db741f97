// Snapshots of a sandbox account: every row of every table of SNAPSHOT_RECORDS owned by the account,
// recorded table by table as one JSON array of row objects, and put back with their own ids. Each
// table is recorded with one INSERT ... SELECT and restored with one INSERT ... SELECT from its JSON,
// so the database does the work and the rows never cross to the process (an account of 10,000
// payments is tens of megabytes of JSON): on PostgreSQL json_agg and json_populate_recordset, on SQLite json_group_array and
// jsonb_each. JSON holds every value exactly: the columns are text and integers within 2^53.
//
// Ids drawn from a sequence (message_attempts.attempt_id, demobank_requests.request_id) come back as
// they were: PostgreSQL's sequences and SQLite's AUTOINCREMENT only count up, so every restored id is
// below the next one they hand out, and no later insert meets it.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { ACCOUNT_ROW, type AccountRecords, ownedBy, SNAPSHOT_RECORDS } from './account-records.js';
import { dialectOf } from './database.js';
import type { DB, SandboxSnapshotsTable } from './schema.js';

export type SnapshotRow = SandboxSnapshotsTable;

const TABLES = SNAPSHOT_RECORDS.map((records) => records.table);
/** The columns a snapshot leaves out of each table: the account's credentials. */
const CREDENTIALS = new Map(SNAPSHOT_RECORDS.map((records) => [records.table, new Set(records.credentials)]));

/** The columns of every table of SNAPSHOT_RECORDS a snapshot holds (not the credentials), in their order, from the database's catalog. */
async function tableColumns(db: Kysely<DB>): Promise<Map<string, string[]>> {
  const { rows } =
    dialectOf(db) === 'postgres'
      ? await sql<{ table_name: string; column_name: string }>`
          select c.relname as table_name, a.attname as column_name
          from pg_attribute a join pg_class c on c.oid = a.attrelid
          where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and c.relname = any(${TABLES})
            and a.attnum > 0 and not a.attisdropped
          order by c.relname, a.attnum`.execute(db)
      : await sql<{ table_name: string; column_name: string }>`
          select m.name as table_name, p.name as column_name
          from sqlite_schema m join pragma_table_info(m.name) p
          where m.type = 'table' and m.name in (${sql.join(TABLES)})
          order by m.name, p.cid`.execute(db);
  const columns = new Map<string, string[]>();
  for (const { table_name, column_name } of rows)
    if (!CREDENTIALS.get(table_name)!.has(column_name)) columns.set(table_name, [...(columns.get(table_name) ?? []), column_name]);
  return columns;
}

/** The table's rows of the account as one JSON array of objects. */
function rowsAsJson(db: Kysely<DB>, records: AccountRecords, columns: string[]): RawBuilder<string> {
  if (dialectOf(db) === 'postgres') {
    const row = records.credentials ? sql`to_jsonb(${sql.table(records.table)}) - ${records.credentials}::text[]` : sql.table(records.table);
    return sql<string>`coalesce(json_agg(${row})::text, '[]')`;
  }
  return sql<string>`json_group_array(json_object(${sql.join(columns.map((column) => sql`${sql.lit(column)}, ${sql.ref(column)}`))}))`;
}

/**
 * Runs `work` in a transaction whose reads all see one moment, so a snapshot holds no change half
 * recorded: PostgreSQL's default isolation gives each statement a moment of its own; SQLite's
 * transactions (BEGIN IMMEDIATE) already see one.
 */
export async function asOfOneMoment<T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').execute(work);
}

/** Records the account's rows under a new snapshot; answers how many rows it holds. */
export async function recordSnapshot(trx: Kysely<DB>, snapshot: Omit<SnapshotRow, 'row_count'>): Promise<number> {
  await trx
    .insertInto('sandbox_snapshots')
    .values({ ...snapshot, row_count: 0 })
    .execute();
  const catalog = await tableColumns(trx);
  for (const records of SNAPSHOT_RECORDS) {
    const columns = catalog.get(records.table)!;
    await sql`
      insert into sandbox_snapshot_tables (snapshot_id, table_name, columns, content, row_count)
      select ${snapshot.snapshot_id}, ${records.table}, ${JSON.stringify(columns)}, ${rowsAsJson(trx, records, columns)}, count(*)
      from ${sql.table(records.table)} where ${ownedBy(records, snapshot.receiver_id)}`.execute(trx);
  }
  const { total } = await trx
    .selectFrom('sandbox_snapshot_tables')
    .select((eb) => eb.fn.sum<number>('row_count').as('total'))
    .where('snapshot_id', '=', snapshot.snapshot_id)
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('sandbox_snapshots')
    .set({ row_count: Number(total) })
    .where('snapshot_id', '=', snapshot.snapshot_id)
    .execute();
  return Number(total);
}

/**
 * The columns a restore writes anew instead of as recorded. `version`: each process keeps a payment
 * (and its serialised answer) per version of it, so a row put back at a version it already had
 * with other content would be answered stale; every restored versioned row, and the account's
 * clock, take a version above any it ever had. Leases: a worker's hold on a row is not the account's.
 */
function rewritten(records: AccountRecords, version: number): Map<string, RawBuilder<unknown>> {
  const columns = new Map<string, RawBuilder<unknown>>();
  if (records.versioned) columns.set('version', sql.lit(version));
  if (records.table === 'merchants') columns.set('clock_version', sql.lit(version));
  for (const column of records.leases ?? []) columns.set(column, sql`null`);
  return columns;
}

/** One table's rows of the snapshot, read back from its JSON, each column by the name it was recorded with. */
function recordedRows(db: Kysely<DB>, snapshotId: string, records: AccountRecords, columns: string[], version: number): RawBuilder<unknown> {
  const rewrite = rewritten(records, version);
  const content = sql`(select content from sandbox_snapshot_tables where snapshot_id = ${snapshotId} and table_name = ${records.table})`;
  if (dialectOf(db) === 'postgres') {
    const values = columns.map((column) => rewrite.get(column) ?? sql.ref(column));
    return sql`select ${sql.join(values)} from json_populate_recordset(null::${sql.table(records.table)}, ${content}::json)`;
  }
  // jsonb_each parses the text once and hands each row over in SQLite's binary JSON, which ->> reads
  // without parsing again; json_each hands each row over as text, parsed anew for every column (a
  // restore of 10,000 payments took five times as long).
  const values = columns.map((column) => rewrite.get(column) ?? sql`value ->> ${sql.lit(column)}`);
  return sql`select ${sql.join(values)} from jsonb_each(${content})`;
}

/**
 * Puts the snapshot's rows back, parents before children (the order of SNAPSHOT_RECORDS), into an
 * account whose other records were deleted in the same transaction: its own row is updated in place
 * (its credentials as they are now), every other one inserted. `version`: see rewritten().
 */
export async function restoreSnapshotRows(trx: Kysely<DB>, { snapshot_id: snapshotId, receiver_id: receiverId }: SnapshotRow, version: number): Promise<void> {
  const recorded = new Map(
    (await trx.selectFrom('sandbox_snapshot_tables').select(['table_name', 'columns', 'row_count']).where('snapshot_id', '=', snapshotId).execute()).map(
      (part) => [part.table_name, part],
    ),
  );
  for (const records of SNAPSHOT_RECORDS) {
    const part = recorded.get(records.table);
    // A table without rows of the account then, or added to SNAPSHOT_RECORDS since: it stays empty.
    if (!part || Number(part.row_count) === 0) continue;
    const columns = JSON.parse(part.columns) as string[];
    if (records === ACCOUNT_ROW) {
      const changed = columns.filter((column) => column !== 'receiver_id');
      await sql`update ${sql.table(records.table)} set (${sql.join(changed.map((column) => sql.ref(column)))}) = (${recordedRows(trx, snapshotId, records, changed, version)})
        where receiver_id = ${receiverId}`.execute(trx);
    } else
      await sql`insert into ${sql.table(records.table)} (${sql.join(columns.map((column) => sql.ref(column)))}) ${recordedRows(trx, snapshotId, records, columns, version)}`.execute(
        trx,
      );
  }
}

/** The highest version any of the account's versioned rows holds now. */
export async function highestRowVersion(trx: Kysely<DB>, receiverId: number): Promise<number> {
  let highest = 0;
  for (const records of SNAPSHOT_RECORDS.filter((r) => r.versioned)) {
    const { rows } = await sql<{
      top: number | null;
    }>`select max(version) as top from ${sql.table(records.table)} where ${ownedBy(records, receiverId)}`.execute(trx);
    highest = Math.max(highest, Number(rows[0]?.top ?? 0));
  }
  return highest;
}

export async function findSnapshot(db: Kysely<DB>, snapshotId: string): Promise<SnapshotRow | undefined> {
  return db.selectFrom('sandbox_snapshots').selectAll().where('snapshot_id', '=', snapshotId).executeTakeFirst();
}

export async function accountSnapshots(db: Kysely<DB>, receiverId: number): Promise<SnapshotRow[]> {
  return db.selectFrom('sandbox_snapshots').selectAll().where('receiver_id', '=', receiverId).orderBy('created_at').orderBy('snapshot_id').execute();
}

export async function deleteSnapshot(trx: Kysely<DB>, snapshotId: string): Promise<void> {
  await trx.deleteFrom('sandbox_snapshot_tables').where('snapshot_id', '=', snapshotId).execute();
  await trx.deleteFrom('sandbox_snapshots').where('snapshot_id', '=', snapshotId).execute();
}

/** Every snapshot of the account, when the account itself goes. */
export async function deleteAccountSnapshots(trx: Kysely<DB>, receiverId: number): Promise<void> {
  const ofAccount = trx.selectFrom('sandbox_snapshots').select('snapshot_id').where('receiver_id', '=', receiverId);
  await trx.deleteFrom('sandbox_snapshot_tables').where('snapshot_id', 'in', ofAccount).execute();
  await trx.deleteFrom('sandbox_snapshots').where('receiver_id', '=', receiverId).execute();
}

/** The bytes the account's snapshots hold together: their tables' rows as stored, in JSON. */
export async function snapshotBytes(db: Kysely<DB>, receiverId: number): Promise<number> {
  const { rows } = await sql<{ bytes: number | string | null }>`
    select sum(octet_length(t.content)) as bytes
    from sandbox_snapshot_tables t join sandbox_snapshots s on s.snapshot_id = t.snapshot_id
    where s.receiver_id = ${receiverId}`.execute(db);
  return Number(rows[0]?.bytes ?? 0);
}
