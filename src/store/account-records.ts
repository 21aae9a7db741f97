// THE table of where an account's records are kept: every table holding rows of one account, how
// its rows are found, and which of their columns are instants on the account's clock (instants on
// the wall clock, such as leases, dashboard sessions and audit records, are not). Deleting a sandbox
// account, recording and restoring its snapshots and bringing its dates back when its clock is reset
// all walk this table, so a new table of account data is a new row here.
import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { dialectOf } from './database.js';
import type { DB } from './schema.js';

export interface AccountRecords {
  table: string;
  /** How the table's rows of one account are found: their own receiver_id, or a key into tables found before. */
  owner: { column: 'receiver_id' } | { column: string; parents: readonly { table: string; key: string }[] };
  /** Columns holding instants on the account's clock. */
  dates: readonly string[];
  /** The row's version, which a change of its dates counts up (readers cache a representation per version). */
  versioned?: true;
  /** Columns of a worker's lease on the row (wall clock): a hold of a process, not the account's state, so a restored row is free. */
  leases?: readonly string[];
  /**
   * Credentials and sign-ins of the account and its people: not the account's state, so a snapshot
   * leaves them out and a restore leaves them as they are, never bringing back what was rotated,
   * changed, revoked or ended.
   */
  kept?: 'credentials';
  /** Columns of the account's own row that are credentials: kept as they are by a restore, as `kept` tables are. */
  credentials?: readonly string[];
}

const own = { column: 'receiver_id' } as const;

/** What DemoBank's transfers are ordered for: a payer's attempt, a charge's debit, an operation run. */
const TRANSFER_ORDERS = [
  { table: 'payment_attempts', key: 'attempt_id' },
  { table: 'debits', key: 'debit_id' },
  { table: 'operations', key: 'operation_id' },
] as const;

/**
 * Children after their parents (every foreign key of the schema points up this list): rows are
 * written in this order and deleted in the reverse. The first row is the account's own.
 */
export const ACCOUNT_RECORDS: readonly AccountRecords[] = [
  {
    table: 'merchants',
    owner: own,
    dates: [],
    credentials: [
      'secret_enc',
      'api_key_hash',
      'api_key_enc',
      'previous_api_key_hash',
      'previous_api_key_until',
      'previous_secret_enc',
      'previous_secret_until',
      'secret_generation',
    ],
  },
  // Before the payments it paid out, which name it.
  { table: 'fund_deliveries', owner: own, dates: ['delivered_at', 'created_at'] },
  {
    table: 'payments',
    owner: own,
    dates: [
      'expires_at',
      'confirm_timeout_at',
      'conciliation_at',
      'confirmed_at',
      'funds_delivery_at',
      'next_reminder_at',
      'created_at',
      'updated_at',
      'deleted_at',
    ],
    versioned: true,
  },
  { table: 'refunds', owner: own, dates: ['created_at'] },
  { table: 'idempotency_keys', owner: own, dates: ['expires_at'] },
  { table: 'payment_attempts', owner: own, dates: ['started_at', 'expires_at', 'updated_at'] },
  { table: 'bank_credits', owner: own, dates: ['credited_at', 'recorded_at'] },
  {
    table: 'messages',
    owner: own,
    dates: ['round_started_at', 'next_attempt_at', 'valid_until', 'delivered_at', 'created_at', 'updated_at'],
    leases: ['lease_id', 'locked_until'],
  },
  { table: 'message_attempts', owner: own, dates: ['due_at', 'started_at'] },
  { table: 'subscriptions', owner: own, dates: ['created_at', 'updated_at'], versioned: true },
  { table: 'subscription_changes', owner: { column: 'subscription_id', parents: [{ table: 'subscriptions', key: 'subscription_id' }] }, dates: ['changed_at'] },
  {
    table: 'mandate_signings',
    owner: { column: 'subscription_id', parents: [{ table: 'subscriptions', key: 'subscription_id' }] },
    dates: ['expires_at', 'created_at', 'updated_at'],
  },
  { table: 'debits', owner: own, dates: ['next_check_at', 'submitted_at', 'settled_at', 'created_at', 'updated_at'] },
  { table: 'operations', owner: own, dates: ['expires_at', 'created_at', 'updated_at'] },
  { table: 'oauth_redirect_uris', owner: own, dates: ['created_at'] },
  // Payers' grants and the tokens they and the account's credentials gave: credentials.
  { table: 'oauth_consents', owner: own, dates: ['created_at', 'updated_at'], kept: 'credentials' },
  { table: 'oauth_authorizations', owner: own, dates: ['authenticated_at', 'code_expires_at', 'redeemed_at', 'created_at'], kept: 'credentials' },
  { table: 'oauth_tokens', owner: own, dates: ['issued_at', 'expires_at', 'revoked_at'], kept: 'credentials' },
  // The dashboard's people: their passwords, roles, second factors and sessions.
  { table: 'dashboard_users', owner: own, dates: [], kept: 'credentials' },
  {
    table: 'dashboard_sessions',
    owner: { column: 'user_id', parents: [{ table: 'dashboard_users', key: 'user_id' }] },
    dates: [],
    kept: 'credentials',
  },
  {
    table: 'dashboard_recovery_codes',
    owner: { column: 'user_id', parents: [{ table: 'dashboard_users', key: 'user_id' }] },
    dates: [],
    kept: 'credentials',
  },
  // DemoBank's books of the account's money: the simulated bank forgets an account with it.
  {
    table: 'demobank_mandates',
    owner: { column: 'mandate_id', parents: [{ table: 'subscriptions', key: 'subscription_id' }] },
    dates: ['activates_at', 'signed_at', 'updated_at'],
  },
  {
    table: 'demobank_debits',
    owner: { column: 'payment_id', parents: [{ table: 'payments', key: 'payment_id' }] },
    dates: ['settles_at', 'received_at', 'updated_at'],
  },
  { table: 'demobank_transfers', owner: { column: 'order_id', parents: TRANSFER_ORDERS }, dates: ['updated_at'] },
  // Every request about one of the account's orders (a transfer, a debit, an operation, a mandate
  // signed); the bank's polls for mandate news and credits are no account's.
  {
    table: 'demobank_requests',
    owner: { column: 'order_id', parents: [...TRANSFER_ORDERS, { table: 'subscriptions', key: 'subscription_id' }] },
    dates: ['asked_at'],
  },
];

/** The account's own row: a restore updates it in place, since the tables it keeps refer to it. */
export const ACCOUNT_ROW: AccountRecords = ACCOUNT_RECORDS[0]!;

/** The tables a snapshot records and a restore replaces: the account's state, without its credentials. */
export const SNAPSHOT_RECORDS: readonly AccountRecords[] = ACCOUNT_RECORDS.filter((records) => !records.kept);

// The table walks every table by name, DemoBank's books (not in Quipu's schema type) included.
const anyTable = (db: Kysely<DB>) => db as unknown as Kysely<Record<string, Record<string, unknown>>>;

const byTable = new Map(ACCOUNT_RECORDS.map((records) => [records.table, records]));

/** The condition that picks a table's rows of one account (through its parents' own rows). */
export function ownedBy(records: AccountRecords, receiverId: number): RawBuilder<SqlBool> {
  const { owner } = records;
  if (!('parents' in owner)) return sql<SqlBool>`receiver_id = ${receiverId}`;
  const among = owner.parents.map(
    ({ table, key }) => sql`${sql.ref(owner.column)} in (select ${sql.ref(key)} from ${sql.table(table)} where ${ownedBy(byTable.get(table)!, receiverId)})`,
  );
  return sql<SqlBool>`(${sql.join(among, sql` or `)})`;
}

/** Moves every instant of the account's records by `shiftMs` (a reset of its clock brings its dates back with it). */
export async function shiftAccountDates(trx: Kysely<DB>, receiverId: number, shiftMs: number): Promise<void> {
  for (const records of ACCOUNT_RECORDS) {
    if (records.dates.length === 0) continue;
    const shifted = Object.fromEntries(records.dates.map((column) => [column, sql`${sql.ref(column)} + ${shiftMs}`]));
    await anyTable(trx)
      .updateTable(records.table)
      .set(records.versioned ? { ...shifted, version: sql`version + 1` } : shifted)
      .where(ownedBy(records, receiverId))
      .execute();
  }
}

/**
 * The rows other processes lock before they add to an account: a job locks a payment or a
 * subscription before it writes a reminder or a line of history, a delivery worker updates a message
 * before it records an attempt. Locked first (by key, as record-credits locks payments), a deletion
 * waits for such a write to commit and deletes what it added; a write that comes after finds the rows
 * gone, instead of adding a child the deletion of its parent then trips on (PostgreSQL; SQLite runs
 * one write transaction at a time).
 */
const LOCKED_BEFORE_DELETION = [
  // The account itself: a batch of its request log (store/request-logs.ts) commits before or finds it gone.
  { table: 'merchants', key: 'receiver_id' },
  { table: 'payments', key: 'payment_id' },
  { table: 'subscriptions', key: 'subscription_id' },
  { table: 'messages', key: 'message_id' },
] as const;

/** Deletes every record of the account (or those of `tables`), children before parents, in the caller's transaction. */
export async function deleteAccountRecords(trx: Kysely<DB>, receiverId: number, tables: readonly AccountRecords[] = ACCOUNT_RECORDS): Promise<void> {
  if (dialectOf(trx) === 'postgres')
    for (const { table, key } of LOCKED_BEFORE_DELETION)
      await anyTable(trx)
        .selectFrom(table)
        .select(key)
        .where(ownedBy(byTable.get(table)!, receiverId))
        .orderBy(key)
        .forUpdate()
        .execute();
  for (const records of [...tables].reverse()) await anyTable(trx).deleteFrom(records.table).where(ownedBy(records, receiverId)).execute();
}
