// A charge intent's two rows, its payment and its debit, written together or not at all. Charges
// that arrive together are written together (group commit, as payment creates are): measured, a
// transaction of its own per charge cost more than the rest of its request.
import type { Kysely } from 'kysely';
import { dialectOf, flushUnderWay } from './database.js';
import { insertDebit } from './debits.js';
import { GroupCommit, inChunks } from './group-commit.js';
import { insertPayment } from './payments.js';
import { perDatabase } from './per-database.js';
import type { DB, DebitsTable, PaymentRow } from './schema.js';

export interface ChargeRows {
  payment: PaymentRow;
  debit: DebitsTable;
}

/** SQLite, in the caller's transaction: two prepared inserts a charge. */
async function insertEach(trx: Kysely<DB>, charges: readonly ChargeRows[]): Promise<void> {
  for (const charge of charges) {
    await insertPayment(trx, charge.payment);
    await insertDebit(trx, charge.debit);
  }
}

/**
 * PostgreSQL: one statement, atomic by itself, one round trip: the payments are inserted by a
 * data-modifying WITH, the debits by the statement itself (their foreign keys are checked at its end).
 */
async function insertTogether(db: Kysely<DB>, charges: readonly ChargeRows[]): Promise<void> {
  await db
    .with('charged', (q) =>
      q
        .insertInto('payments')
        .values(charges.map((c) => c.payment))
        .returning('payment_id'),
    )
    .insertInto('debits')
    .values(charges.map((c) => c.debit))
    .execute();
}

/** Writes charges all or none, in `db`'s transaction if it is one. */
function insertAll(db: Kysely<DB>, charges: readonly ChargeRows[]): Promise<void> {
  return dialectOf(db) === 'sqlite' ? insertEach(db, charges) : insertTogether(db, charges);
}

/**
 * Each group in one commit: on SQLite the whole batch in one transaction, on PostgreSQL one
 * statement per chunk. A group that fails wrote nothing, and its charges are written again one by
 * one, so that only the failing one fails.
 */
function batchWriter(db: Kysely<DB>) {
  const sqlite = dialectOf(db) === 'sqlite';
  const write = (charges: readonly ChargeRows[]) => (sqlite ? db.transaction().execute((trx) => insertAll(trx, charges)) : insertAll(db, charges));
  const group = async (charges: ChargeRows[]): Promise<unknown[]> => {
    try {
      await write(charges);
      return charges.map(() => undefined);
    } catch (error) {
      if (charges.length === 1) return [error];
      const errors: unknown[] = [];
      for (const charge of charges)
        errors.push(
          await write([charge]).then(
            () => undefined,
            (failure: unknown) => failure,
          ),
        );
      return errors;
    }
  };
  if (sqlite) return group;
  return async (charges: ChargeRows[]) => (await Promise.all(inChunks(charges).map(group))).flat();
}

const batchOf = perDatabase((db: Kysely<DB>) => new GroupCommit(batchWriter(db), () => flushUnderWay(db)));

/** Inserts a charge's payment and debit; outside a transaction, through group commit with the charges that arrive with it. */
export async function insertCharge(db: Kysely<DB>, charge: ChargeRows): Promise<void> {
  if (db.isTransaction) return insertAll(db, [charge]);
  return batchOf(db).add(charge);
}
