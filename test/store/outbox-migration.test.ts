// Migration 010 turns the payment notification rows into outbox messages: ids, bodies, delivery
// state and attempts are kept, and the old tables stay readable as views.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrate.js';
import { earlyMerchantRow } from '../helpers/database.js';
import { useDatabaseBefore } from '../helpers/migration-test.js';

const earlier = useDatabaseBefore('010');

const T = 1_790_000_000_000;

describe('migration 010-outbox', () => {
  it('moves notifications and their attempts into the outbox unchanged, and keeps the old names as views', async () => {
    await earlier.db.insertInto('merchants').values(earlyMerchantRow(123456, T)).execute();
    const payment = (id: string) => ({
      payment_id: id,
      receiver_id: 123456,
      notification_token: id.repeat(6),
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
      created_at: T,
      updated_at: T,
    });
    await earlier.db
      .insertInto('payments')
      .values([payment('aaaaaaaaaaaa'), payment('bbbbbbbbbbbb')])
      .execute();
    const notification = (id: string, paymentId: string, version: string, status: string) => ({
      notification_id: id,
      receiver_id: 123456,
      payment_id: paymentId,
      api_version: version,
      url: 'http://127.0.0.1:9/notify',
      destination: 'http://127.0.0.1:9',
      content_type: version === '1.3' ? 'application/x-www-form-urlencoded' : 'application/json',
      body: `body of ${id}`,
      status,
      attempts: 1,
      round_step: 1,
      round_started_at: T,
      next_attempt_at: status === 'pending' ? T + 5_000 : null,
      lease_id: null,
      locked_until: null,
      delivered_at: status === 'delivered' ? T : null,
      created_at: T,
      updated_at: T,
    });
    await earlier.db
      .insertInto('notifications')
      .values([notification('n-13', 'aaaaaaaaaaaa', '1.3', 'delivered'), notification('n-30', 'bbbbbbbbbbbb', '3.0', 'pending')])
      .execute();
    const attempt = (id: string, status: number) => ({
      notification_id: id,
      receiver_id: 123456,
      number: 1,
      trigger: 'first',
      due_at: T,
      started_at: T,
      latency_ms: 4,
      outcome: status === 200 ? 'delivered' : 'failed',
      http_status: status,
      error: status === 200 ? null : 'HTTP 500',
      response_excerpt: 'ok',
    });
    await earlier.db
      .insertInto('notification_attempts')
      .values([attempt('n-13', 200), attempt('n-30', 500)])
      .execute();
    const oldNotifications = await earlier.db.selectFrom('notifications').selectAll().orderBy('notification_id').execute();
    const oldAttempts = await earlier.db.selectFrom('notification_attempts').selectAll().orderBy('attempt_id').execute();

    expect((await migrateToLatest(earlier.db)).applied).toContain('010-outbox');

    const messages = await earlier.db.selectFrom('messages').selectAll().orderBy('message_id').execute();
    expect(messages.map((m) => [m.message_id, m.kind, m.subject_type, m.subject_id, m.signing, m.status, m.body])).toEqual([
      ['n-13', 'payment.notification.1.3', 'payment', 'aaaaaaaaaaaa', 'none', 'delivered', 'body of n-13'],
      ['n-30', 'payment.notification.3.0', 'payment', 'bbbbbbbbbbbb', 'khipu-signature', 'pending', 'body of n-30'],
    ]);
    const attempts = await earlier.db.selectFrom('message_attempts').selectAll().orderBy('attempt_id').execute();
    expect(attempts.map((a) => [a.message_id, a.status_code, a.error])).toEqual([
      ['n-13', 200, null],
      ['n-30', 500, 'HTTP 500'],
    ]);
    // The views read exactly what the tables held.
    expect(await earlier.db.selectFrom('notifications').selectAll().orderBy('notification_id').execute()).toEqual(oldNotifications);
    expect(await earlier.db.selectFrom('notification_attempts').selectAll().orderBy('attempt_id').execute()).toEqual(oldAttempts);
    // New attempts are numbered after the copied ones.
    await earlier.db
      .insertInto('message_attempts')
      .values({ ...attempt('n-30', 500), message_id: 'n-30', notification_id: undefined, http_status: undefined, status_code: 500, number: 2 })
      .execute();
    const ids = (await sql<{ attempt_id: number }>`select attempt_id from message_attempts order by attempt_id`.execute(earlier.db)).rows.map((r) =>
      Number(r.attempt_id),
    );
    expect(new Set(ids).size).toBe(3);
  });
});
