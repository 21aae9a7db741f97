// The browser flows (an OAuth authorization, a payer's consent review) move on only from the status
// they were read in: of two concurrent submissions one wins, the other learns it lost.
import { type Kysely, sql, type Updateable } from 'kysely';
import type { DB } from './schema.js';

const FLOW_KEYS = { oauth_authorizations: 'authorization_id', oauth_consent_reviews: 'review_id' } as const;

export type BrowserFlowTable = keyof typeof FLOW_KEYS;

export async function advanceFlow<T extends BrowserFlowTable>(
  db: Kysely<DB>,
  table: T,
  id: string,
  fromStatus: string,
  changes: Updateable<DB[T]>,
): Promise<boolean> {
  const result = await db
    .updateTable(table as BrowserFlowTable)
    // Both tables take the columns their own type gives; the union's update type cannot say so.
    .set(changes as never)
    .where(sql.ref(FLOW_KEYS[table]), '=', id)
    .where('status', '=', fromStatus)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
