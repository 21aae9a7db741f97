// The audit log's rows. Appending locks the chain's head (a setting row), so appends from every
// process of an installation line up one after the other and each links to the one before.
import type { Kysely } from 'kysely';
import { AUDIT_GENESIS, type AuditEntry, type AuditHead, auditHash, type AuditRecord } from '../domain/audit.js';
import type { AuditLogTable, DB } from './schema.js';
import { lockSetting } from './setting-lock.js';
import { inTransaction } from './transaction.js';

const HEAD = 'audit.head';
const EMPTY_HEAD = JSON.stringify({ seq: 0, hash: AUDIT_GENESIS } satisfies AuditHead);

export async function appendAudit(db: Kysely<DB>, entry: AuditEntry): Promise<AuditRecord> {
  return inTransaction(db, async (trx) => {
    const head = JSON.parse(await lockSetting(trx, HEAD, EMPTY_HEAD)) as AuditHead;
    const seq = head.seq + 1;
    const record: AuditRecord = { ...entry, seq, prevHash: head.hash, hash: auditHash(head.hash, seq, entry) };
    await trx
      .insertInto('audit_log')
      .values({
        seq,
        at: entry.at,
        actor_kind: entry.actorKind,
        actor: entry.actor,
        receiver_id: entry.receiverId,
        action: entry.action,
        target: entry.target,
        outcome: entry.outcome,
        address: entry.address,
        prev_hash: record.prevHash,
        hash: record.hash,
      })
      .execute();
    await trx
      .updateTable('settings')
      .set({ value: JSON.stringify({ seq, hash: record.hash } satisfies AuditHead) })
      .where('name', '=', HEAD)
      .execute();
    return record;
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

/** Records older than `before` go, all but the newest (the head's): the oldest kept then anchors the chain. */
export async function pruneAudit(db: Kysely<DB>, before: number): Promise<void> {
  const head = await auditHead(db);
  const kept = await db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.min('seq').as('seq'))
    .where('at', '>=', before)
    .executeTakeFirst();
  const from = Math.min(kept?.seq === null || kept?.seq === undefined ? head.seq : Number(kept.seq), head.seq);
  await db.deleteFrom('audit_log').where('seq', '<', from).execute();
}
