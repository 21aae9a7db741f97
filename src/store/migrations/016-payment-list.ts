// The payments list (store/payment-list.ts): an account's live payments newest first, paged by
// (created_at, payment_id), filtered by status, status_detail and creation dates, and searched for
// a text in the subject, payment_id, transaction_id and payer email joined by U+001F (the search
// text). The new indexes lead with (receiver_id, created_at), so payments_receiver_created goes.
//
// SQLite: one index holds every column a filter reads and the search text itself, an index on an
// expression: a search, which no B-tree can answer, scans that index in the listing's order and
// stops at a full page, and reads a payment's row only once it matches.
// PostgreSQL: the keyset index; one by state, for a status or status_detail few payments are in;
// and a trigram index (pg_trgm, trusted since PostgreSQL 13) of the lowercased search text, which
// answers a substring search without a scan.
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'sqlite') {
    await sql`
      create index payments_list on payments (receiver_id, created_at, payment_id, deleted_at, status, status_detail,
        (subject || char(31) || payment_id || char(31) || coalesce(transaction_id, '') || char(31) || coalesce(payer_email, '')))
    `.execute(db);
  } else {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await db.schema.createIndex('payments_list').on('payments').columns(['receiver_id', 'created_at', 'payment_id']).execute();
    await db.schema.createIndex('payments_list_state').on('payments').columns(['receiver_id', 'status', 'status_detail', 'created_at', 'payment_id']).execute();
    await sql`
      create index payments_list_search on payments using gin
        ((lower(subject || chr(31) || payment_id || chr(31) || coalesce(transaction_id, '') || chr(31) || coalesce(payer_email, ''))) gin_trgm_ops)
    `.execute(db);
  }
  await db.schema.dropIndex('payments_receiver_created').execute();
}
