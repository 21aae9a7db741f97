// Migration 033: on PostgreSQL the payments list's trigram index keeps no pending list any more
// (fastupdate off), and what was pending when it ran is in the index, so no create after the
// upgrade pays for moving it; searches find the payments written before and after. On SQLite,
// whose search index is a B-tree, it changes nothing.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrate.js';
import { listPaymentRows } from '../../src/store/payment-list.js';
import { earlyMerchantRow } from '../helpers/database.js';
import { useDatabaseBefore } from '../helpers/migration-test.js';

const earlier = useDatabaseBefore('033');

const T = 1_790_000_000_000;
const RECEIVER = 333333;

/** Payments as migration 001 made the table, their ids and order numbers made from `tag` and their position. */
const payments = (tag: string, count: number) =>
  Array.from({ length: count }, (_, i) => {
    const id = `${tag}${String(i).padStart(12 - tag.length, '0')}`;
    return {
      payment_id: id,
      receiver_id: RECEIVER,
      notification_token: id.repeat(6),
      status: 'pending',
      status_detail: 'pending',
      version: 2,
      subject: `Pedido ${tag}-${i} zapatillas`,
      transaction_id: `INV-${tag}-${i}`,
      amount: 10_000_000,
      currency: 'CLP',
      discount: 0,
      refunded: 0,
      expires_at: T,
      send_email: 0,
      send_reminders: 0,
      collect_account_uuid: 'acc',
      out_of_date_conciliation: 0,
      created_at: T + i,
      updated_at: T + i,
    };
  });

const isPostgres = () => earlier.database.kind === 'postgres';
/** Moves whatever the index has pending into it; answers how many pages that was. */
const movePending = async () =>
  Number((await sql<{ pages: string }>`select gin_clean_pending_list('payments_list_search') as pages`.execute(earlier.db)).rows[0]!.pages);

describe('migration 033-payment-search-pending-list', () => {
  it('turns the trigram index’s pending list off, empties it, and searches find payments from before and after', async () => {
    await earlier.db.insertInto('merchants').values(earlyMerchantRow(RECEIVER, T)).execute();
    await earlier.db.insertInto('payments').values(payments('before', 200)).execute();

    await migrateToLatest(earlier.db);

    if (isPostgres()) {
      const { rows } = await sql<{ reloptions: string[] | null }>`select reloptions from pg_class where relname = 'payments_list_search'`.execute(earlier.db);
      expect(rows[0]!.reloptions).toContain('fastupdate=off');
      expect(await movePending()).toBe(0);
    }

    await earlier.db.insertInto('payments').values(payments('after', 200)).execute();
    // Inserted straight into the index: nothing waits in a list for a later insert to move.
    if (isPostgres()) expect(await movePending()).toBe(0);

    const found = async (q: string) => (await listPaymentRows(earlier.db, RECEIVER, { q }, 50)).map((p) => p.payment_id);
    expect(await found('before-17 zapa')).toEqual(['before000017']);
    expect(await found('inv-after-199')).toEqual(['after0000199']);
    expect(await found('after0000042')).toEqual(['after0000042']);
  });
});
