// The audit log's rows. Appending locks the chain's head (a setting row), so appends from every
// process of an installation line up one after the other and each links to the one before; a prune
// leaves the chain's anchor (another setting row) in its own transaction.
import { type Kysely, sql } from 'kysely';
import { AUDIT_GENESIS, type AuditAnchor, type AuditEntry, type AuditHead, auditHash, type AuditRecord } from '../domain/audit.js';
import type { AuditLogTable, DB } from './schema.js';
import { dialectOf } from './database.js';
import { inChunks } from './group-commit.js';
import { perDatabase } from './per-database.js';
import { lockSetting } from './setting-lock.js';
import { inTransaction } from './transaction.js';

const HEAD = 'audit.head';
const EMPTY_HEAD = JSON.stringify({ seq: 0, hash: AUDIT_GENESIS } satisfies AuditHead);
const ANCHOR = 'audit.anchor';

interface Append {
  entry: AuditEntry;
  resolve(record: AuditRecord): void;
  reject(error: unknown): void;
}

/**
 * Appends made outside a transaction line up in the process: one transaction at a time holds the
 * head, and the appends that arrive meanwhile (the records of a burst of API calls) wait to go
 * together in the next one. Measured on PostgreSQL, a record appended alone held the head for
 * four round trips, and a burst of charge intents lined up behind it, each append holding a
 * pooled connection while it waited.
 */
const appenderOf = perDatabase((db: Kysely<DB>) => {
  let waiting: Append[] = [];
  let appending = false;
  const appendWaiting = async () => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const records = await appendRecords(
          db,
          batch.map((a) => a.entry),
        );
        batch.forEach((a, i) => a.resolve(records[i]!));
      } catch (error) {
        for (const a of batch) a.reject(error);
      }
    }
    appending = false;
  };
  return (entry: AuditEntry) =>
    new Promise<AuditRecord>((resolve, reject) => {
      waiting.push({ entry, resolve, reject });
      if (appending) return;
      appending = true;
      // The first batch takes what arrives in this turn of the event loop.
      setImmediate(() => void appendWaiting());
    });
});

/**
 * First in a repeatable-read transaction that appends (a snapshot's take), before its moment is
 * fixed: on PostgreSQL the chain's head is a row of `settings`, and such a transaction fails on a row
 * that another changed after its moment. A lock on the table fixes no moment; taken first, it keeps
 * every other transaction from changing a setting, appends included, until this one ends. SQLite's
 * transactions hold the whole database already.
 */
export async function holdChainHead(trx: Kysely<DB>): Promise<void> {
  if (dialectOf(trx) === 'postgres') await sql`lock table settings in exclusive mode`.execute(trx);
}

export async function appendAudit(db: Kysely<DB>, entry: AuditEntry): Promise<AuditRecord> {
  if (db.isTransaction) return (await appendRecords(db, [entry]))[0]!;
  return appenderOf(db)(entry);
}

/** The entries appended in their order, in one transaction (the caller's, if `db` is one). */
async function appendRecords(db: Kysely<DB>, entries: readonly AuditEntry[]): Promise<AuditRecord[]> {
  return inTransaction(db, async (trx) => {
    let head = JSON.parse(await lockSetting(trx, HEAD, EMPTY_HEAD)) as AuditHead;
    const records = entries.map((entry): AuditRecord => {
      const seq = head.seq + 1;
      const record = { ...entry, seq, prevHash: head.hash, hash: auditHash(head.hash, seq, entry) };
      head = { seq, hash: record.hash };
      return record;
    });
    for (const chunk of inChunks(records))
      await trx
        .insertInto('audit_log')
        .values(
          chunk.map((record) => ({
            seq: record.seq,
            at: record.at,
            actor_kind: record.actorKind,
            actor: record.actor,
            receiver_id: record.receiverId,
            action: record.action,
            target: record.target,
            outcome: record.outcome,
            address: record.address,
            prev_hash: record.prevHash,
            hash: record.hash,
          })),
        )
        .execute();
    await trx
      .updateTable('settings')
      .set({ value: JSON.stringify(head satisfies AuditHead) })
      .where('name', '=', HEAD)
      .execute();
    return records;
  });
}

export async function auditHead(db: Kysely<DB>): Promise<AuditHead> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', HEAD).executeTakeFirst();
  return JSON.parse(row?.value ?? EMPTY_HEAD) as AuditHead;
}

function toRecord(row: AuditLogTable): AuditRecord {
  const receiverId = row.receiver_id === null ? null : Number(row.receiver_id);
  return {
    seq: Number(row.seq),
    at: Number(row.at),
    actorKind: row.actor_kind,
    actor: row.actor,
    receiverId,
    action: row.action,
    target: row.target,
    outcome: row.outcome,
    address: row.address,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

const PAGE = 1_000;

/** Every record in order (of one account, if given), a page at a time: a year of records never sits in memory whole. */
export async function* auditRecords(db: Kysely<DB>, receiverId?: number): AsyncGenerator<AuditRecord> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('seq', '>', after)
      .$if(receiverId !== undefined, (q) => q.where('receiver_id', '=', receiverId!))
      .orderBy('seq')
      .limit(PAGE)
      .execute();
    for (const row of rows) yield toRecord(row);
    if (rows.length < PAGE) return;
    after = Number(rows.at(-1)!.seq);
  }
}

/** An account's newest records first, a page of them below `before`. */
export async function latestAuditRecords(db: Kysely<DB>, receiverId: number, limit: number, before?: number): Promise<AuditRecord[]> {
  const rows = await db
    .selectFrom('audit_log')
    .selectAll()
    .where('receiver_id', '=', receiverId)
    .$if(before !== undefined, (q) => q.where('seq', '<', before!))
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRecord);
}

/**
 * Records dated before `before` go from the start of the chain up to the first that is not, and
 * the last of them becomes the anchor, in one transaction: the chain then starts where the prune
 * cut it, and nowhere else (domain/audit.ts, anchorFault).
 */
export async function pruneAudit(db: Kysely<DB>, before: number): Promise<void> {
  await inTransaction(db, async (trx) => {
    // One prune at a time: the anchor is the last record the latest prune removed.
    await lockSetting(trx, ANCHOR, 'null');
    const kept = await trx.selectFrom('audit_log').select('seq').where('at', '>=', before).orderBy('seq').limit(1).executeTakeFirst();
    const last = await trx
      .selectFrom('audit_log')
      .selectAll()
      .$if(kept !== undefined, (q) => q.where('seq', '<', kept!.seq))
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!last) return;
    await trx.deleteFrom('audit_log').where('seq', '<=', last.seq).execute();
    await trx
      .updateTable('settings')
      .set({ value: JSON.stringify({ record: toRecord(last), cut: before } satisfies AuditAnchor) })
      .where('name', '=', ANCHOR)
      .execute();
  });
}

/** The anchor the last prune left; none if nothing was ever pruned. */
export async function auditAnchor(db: Kysely<DB>): Promise<AuditAnchor | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', ANCHOR).executeTakeFirst();
  return (JSON.parse(row?.value ?? 'null') as AuditAnchor | null) ?? undefined;
}
