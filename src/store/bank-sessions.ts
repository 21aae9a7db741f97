// A payer's session at a bank, a payment attempt's or a mandate signing's: the two tables share the
// columns a move writes, and move alike.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface BankSessionMove {
  state: string;
  at: Date;
  failure?: string | null;
  personalIdentifier?: string | null;
  accountNumber?: string | null;
  payerName?: string | null;
}

function bankSessionColumns(move: BankSessionMove) {
  return {
    state: move.state,
    updated_at: move.at.getTime(),
    ...(move.failure !== undefined && { failure: move.failure }),
    ...(move.personalIdentifier !== undefined && {
      personal_identifier: move.personalIdentifier,
      account_number: move.accountNumber ?? null,
      payer_name: move.payerName ?? null,
    }),
  };
}

/** Each table of sessions and its key. */
const SESSION_IDS = { payment_attempts: 'attempt_id', mandate_signings: 'signing_id' } as const;

/**
 * Writes a session's move from `from`: a compare-and-set, so of two requests racing on one session
 * exactly one wins. False means the session was not in `from`.
 */
export async function moveBankSession(db: Kysely<DB>, table: keyof typeof SESSION_IDS, id: string, from: string, move: BankSessionMove): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set(bankSessionColumns(move))
    .where(db.dynamic.ref(SESSION_IDS[table]), '=', id)
    .where('state', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
