// Mandate signing sessions (domain/mandate-signing.ts).
import type { Kysely } from 'kysely';
import type { MandateSigning, SigningState } from '../domain/mandate-signing.js';
import type { SigningMove } from '../domain/signing-status.js';
import { moveBankSession } from './bank-sessions.js';
import { recordOf } from './columns-of.js';
import type { DB, MandateSigningRow, MandateSigningsTable } from './schema.js';

const toSigning = (row: MandateSigningRow) => recordOf<MandateSigning>(row, { expiresAt: 'instant', createdAt: 'instant', updatedAt: 'instant' });

export async function insertSigning(db: Kysely<DB>, row: MandateSigningsTable): Promise<void> {
  await db.insertInto('mandate_signings').values(row).execute();
}

export async function findSigning(db: Kysely<DB>, signingId: string): Promise<MandateSigning | undefined> {
  const row = await db.selectFrom('mandate_signings').selectAll().where('signing_id', '=', signingId).executeTakeFirst();
  return row && toSigning(row);
}

/** Writes a session's move from `from` (compare-and-set): false when another request moved it first. */
export function moveSigning(db: Kysely<DB>, signingId: string, from: SigningState, move: SigningMove): Promise<boolean> {
  return moveBankSession(db, 'mandate_signings', signingId, from, move);
}
