// A page of one account's payments as a listing's filter asks (domain/payment-filter.ts), newest
// first, in one query served by the indexes of migration 016 (its comment says which serves what).
import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { PaymentFilter } from '../domain/payment-filter.js';
import { detailsIn, statusesWith } from '../domain/payment-status.js';
import { dialectOf } from './database.js';
import type { DB, PaymentRow } from './schema.js';

// The searched fields joined by U+001F, which a search may not hold (payment-filter.ts), written
// exactly as migration 016 indexes it: the planners use an index on an expression only for that
// expression. PostgreSQL's is lowercased for its trigram index.
const SEARCH_TEXT = {
  sqlite: sql<string>`(subject || char(31) || payment_id || char(31) || coalesce(transaction_id, '') || char(31) || coalesce(payer_email, ''))`,
  postgres: sql<string>`lower(subject || chr(31) || payment_id || chr(31) || coalesce(transaction_id, '') || chr(31) || coalesce(payer_email, ''))`,
};

const escapeLike = (c: string) => ('\\%_'.includes(c) ? `\\${c}` : c);
const likePattern = (q: string, each = escapeLike) => `%${[...q].map(each).join('')}%`;
const foldsBeyondAscii = (c: string) => c.codePointAt(0)! > 0x7f && c.toLowerCase() !== c.toUpperCase();

/** GLOB folds no case: each letter is the class of its cases ([ñÑ]); what GLOB reads as a wildcard, a class of its own. */
function globPattern(q: string): string {
  const one = (c: string) => {
    const cases = [...new Set([c, c.toLowerCase(), c.toUpperCase()])].filter((v) => [...v].length === 1);
    if (cases.length > 1) return `[${cases.join('')}]`;
    return '*?['.includes(c) ? `[${c}]` : c;
  };
  return `*${[...q].map(one).join('')}*`;
}

/** `q` anywhere in the search text, whatever the case of its letters. */
function searchFor(db: Kysely<DB>, q: string): RawBuilder<SqlBool> {
  if (dialectOf(db) === 'postgres') return sql<SqlBool>`${SEARCH_TEXT.postgres} like lower(${likePattern(q)}) escape '\\'`;
  // SQLite's LIKE folds the case of ASCII letters only: any other letter matches any one character
  // there, and GLOB, slower, checks those letters in the few payments LIKE lets through.
  const like = sql<SqlBool>`${SEARCH_TEXT.sqlite} like ${likePattern(q, (c) => (foldsBeyondAscii(c) ? '_' : escapeLike(c)))} escape '\\'`;
  if (![...q].some(foldsBeyondAscii)) return like;
  return sql<SqlBool>`(${like} and ${SEARCH_TEXT.sqlite} glob ${globPattern(q)})`;
}

/** Up to `limit` live payments of the account, newest first (created_at, then payment_id). */
export async function listPaymentRows(db: Kysely<DB>, receiverId: number, filter: Omit<PaymentFilter, 'limit'>, limit: number): Promise<PaymentRow[]> {
  const { status, statusDetail, from, to, q, after } = filter;
  return (
    db
      .selectFrom('payments')
      .selectAll()
      .where('receiver_id', '=', receiverId)
      .where('deleted_at', 'is', null)
      // Either half of a state names the other's few values: with both, PostgreSQL seeks the state in
      // payments_list_state instead of scanning for a state no payment may be in.
      .$if(status !== undefined, (qb) => qb.where('status', '=', status!).where('status_detail', 'in', detailsIn(status!)))
      .$if(statusDetail !== undefined, (qb) => qb.where('status_detail', '=', statusDetail!).where('status', 'in', statusesWith(statusDetail!)))
      .$if(from !== undefined, (qb) => qb.where('created_at', '>=', from!.getTime()))
      .$if(to !== undefined, (qb) => qb.where('created_at', '<', to!.getTime()))
      .$if(q !== undefined, (qb) => qb.where(searchFor(db, q!)))
      .$if(after !== undefined, (qb) => qb.where((eb) => eb(eb.refTuple('created_at', 'payment_id'), '<', eb.tuple(after!.at, after!.id))))
      .orderBy('created_at', 'desc')
      .orderBy('payment_id', 'desc')
      .limit(limit)
      .execute()
  );
}
