// Mandate signing sessions (domain/mandate-signing.ts).
import type { Kysely } from 'kysely';
import type { MandateSigning, SigningState } from '../domain/mandate-signing.js';
import type { SigningMove } from '../domain/signing-status.js';
import { bankSessionColumns } from './bank-session-columns.js';
import type { DB, MandateSigningRow, MandateSigningsTable } from './schema.js';

function toSigning(row: MandateSigningRow): MandateSigning {
  return {
    signingId: row.signing_id,
    subscriptionId: row.subscription_id,
    bankId: row.bank_id,
    state: row.state as SigningState,
    personalIdentifier: row.personal_identifier,
    accountNumber: row.account_number,
    payerName: row.payer_name,
    failure: row.failure,
    expiresAt: new Date(Number(row.expires_at)),
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}

export async function insertSigning(db: Kysely<DB>, row: MandateSigningsTable): Promise<void> {
  await db.insertInto('mandate_signings').values(row).execute();
}

export async function findSigning(db: Kysely<DB>, signingId: string): Promise<MandateSigning | undefined> {
  const row = await db.selectFrom('mandate_signings').selectAll().where('signing_id', '=', signingId).executeTakeFirst();
  return row && toSigning(row);
}

/** Writes a session's move from `from` (compare-and-set): false when another request moved it first. */
export async function moveSigning(db: Kysely<DB>, signingId: string, from: SigningState, move: SigningMove): Promise<boolean> {
  const result = await db
    .updateTable('mandate_signings')
    .set(bankSessionColumns(move))
    .where('signing_id', '=', signingId)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
