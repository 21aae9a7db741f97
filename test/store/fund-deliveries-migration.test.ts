// Migration 013 gives every existing account the rendition_url it was opened with (kept until then
// in its receiver-create profile), and leaves every payment outside any delivery.
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrate.js';
import { earlyMerchantRow } from '../helpers/database.js';
import { useDatabaseBefore } from '../helpers/migration-test.js';

const earlier = useDatabaseBefore('013');

const T = 1_790_000_000_000;

describe('migration 013-fund-deliveries', () => {
  it("takes each account's rendition_url from its profile, and no payment is in a delivery", async () => {
    const merchant = (receiverId: number, profile: Record<string, string>) => earlyMerchantRow(receiverId, T, profile);
    await earlier.db
      .insertInto('merchants')
      .values([
        merchant(111111, { business_name: 'Tienda', rendition_url: 'https://shop.example/rendition?a=1&b=\u00f1' }),
        merchant(222222, { business_name: 'Otra', notify_url: 'https://shop.example/notify' }),
        merchant(333333, {}),
      ])
      .execute();
    await earlier.db
      .insertInto('payments')
      .values({
        payment_id: 'aaaaaaaaaaaa',
        receiver_id: 111111,
        notification_token: 'a'.repeat(64),
        status: 'done',
        status_detail: 'normal',
        version: 2,
        subject: 'Order',
        amount: 10_000_000,
        currency: 'CLP',
        discount: 0,
        refunded: 0,
        expires_at: T,
        send_email: 0,
        send_reminders: 0,
        collect_account_uuid: 'acc',
        out_of_date_conciliation: 0,
        funds_delivery_at: T,
        created_at: T,
        updated_at: T,
      })
      .execute();

    expect((await migrateToLatest(earlier.db)).applied).toContain('013-fund-deliveries');

    const urls = await earlier.db.selectFrom('merchants').select(['receiver_id', 'rendition_url']).orderBy('receiver_id').execute();
    expect(urls).toEqual([
      { receiver_id: 111111, rendition_url: 'https://shop.example/rendition?a=1&b=\u00f1' },
      { receiver_id: 222222, rendition_url: null },
      { receiver_id: 333333, rendition_url: null },
    ]);
    expect(await earlier.db.selectFrom('payments').select('fund_delivery_id').execute()).toEqual([{ fund_delivery_id: null }]);
    expect(await earlier.db.selectFrom('fund_deliveries').selectAll().execute()).toEqual([]);
  });
});
