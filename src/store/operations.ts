// Operations issued with a descriptor (domain/operation.ts).
import type { Kysely } from 'kysely';
import type { Operation, OperationEvent, OperationState } from '../domain/operation.js';
import type { OperationMove } from '../domain/operation-status.js';
import type { PagePosition } from '../domain/page-cursor.js';
import { groupedInserts } from './group-commit.js';
import { perDatabase } from './per-database.js';
import { preparedInsert } from './prepared.js';
import type { DB, OperationRow, OperationsTable, OperationUpdate } from './schema.js';

function toOperation(row: OperationRow): Operation {
  return {
    operationId: row.operation_id,
    receiverId: Number(row.receiver_id),
    keyId: row.key_id,
    bank: row.bank,
    description: row.description,
    state: row.state as OperationState,
    bankId: row.bank_id,
    payerIdentifier: row.payer_identifier,
    payerAccount: row.payer_account,
    payerName: row.payer_name,
    failure: row.failure,
    events: JSON.parse(row.events) as OperationEvent[],
    expiresAt: new Date(Number(row.expires_at)),
    createdAt: new Date(Number(row.created_at)),
  };
}

const insertRow = preparedInsert<OperationsTable>('operations');
const insertOne = (db: Kysely<DB>, row: OperationsTable) => insertRow.run(db, row);
const batchOf = perDatabase((db: Kysely<DB>) => groupedInserts(db, 'operations', insertOne));

/** Inserts an operation, through group commit with the inserts that arrive with it (as payments are). */
export async function insertOperation(db: Kysely<DB>, row: OperationsTable): Promise<void> {
  await (db.isTransaction ? insertOne(db, row) : batchOf(db).add(row));
}

export async function findOperation(db: Kysely<DB>, operationId: string): Promise<Operation | undefined> {
  const row = await db.selectFrom('operations').selectAll().where('operation_id', '=', operationId).executeTakeFirst();
  return row && toOperation(row);
}

/** Up to `limit` operations of the account, newest first (created_at, then operation_id), from after `after`; index operations_list (migration 018). */
export async function listOperations(db: Kysely<DB>, receiverId: number, after: PagePosition | undefined, limit: number): Promise<Operation[]> {
  const rows = await db
    .selectFrom('operations')
    .selectAll()
    .where('receiver_id', '=', receiverId)
    .$if(after !== undefined, (qb) => qb.where((eb) => eb(eb.refTuple('created_at', 'operation_id'), '<', eb.tuple(after!.at, after!.id))))
    .orderBy('created_at', 'desc')
    .orderBy('operation_id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toOperation);
}

/** Writes an operation's move from `from` (compare-and-set): false when another request moved it first. */
export async function moveOperation(db: Kysely<DB>, operationId: string, from: OperationState, move: OperationMove): Promise<boolean> {
  const update: OperationUpdate = {
    state: move.state,
    events: JSON.stringify(move.events),
    updated_at: move.at.getTime(),
    ...(move.bankId !== undefined && {
      bank_id: move.bankId,
      payer_identifier: move.payerIdentifier,
      payer_account: move.payerAccount,
      payer_name: move.payerName,
    }),
    ...(move.failure !== undefined && { failure: move.failure }),
  };
  const result = await db.updateTable('operations').set(update).where('operation_id', '=', operationId).where('state', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Key ids that operations still open at `now` were sealed with, which are not among `kids`. */
export async function keysOfOpenOperationsOutside(db: Kysely<DB>, now: number, kids: readonly string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('operations')
    .select('key_id')
    .distinct()
    .where('expires_at', '>', now)
    .$if(kids.length > 0, (q) => q.where('key_id', 'not in', kids))
    .execute();
  return rows.map((r) => r.key_id);
}
