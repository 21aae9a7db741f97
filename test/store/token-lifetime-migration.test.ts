// Migration 034: the tokens issued before it are counted to their account's secret as it is then
// (generation 0, which a rotation ends), and as issued on the wall clock when their issued_at says,
// or when the migration ran if that was ahead of real time (an account's developer clock): none of
// them lives more than a year of real time from then.
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrate.js';
import { earlyMerchantRow } from '../helpers/database.js';
import { useDatabaseBefore } from '../helpers/migration-test.js';

const earlier = useDatabaseBefore('034');

const DAY = 86_400_000;
const RECEIVER = 343434;

const token = (jti: string, issuedAt: number) => ({
  jti,
  receiver_id: RECEIVER,
  grant_type: 'client_credentials',
  issued_at: issuedAt,
  expires_at: issuedAt + 365 * DAY,
});

describe('migration 034-token-lifetime', () => {
  it('counts existing tokens to the current secret, and as issued no later than the migration', async () => {
    const now = Date.now();
    await earlier.db.insertInto('merchants').values(earlyMerchantRow(RECEIVER, now)).execute();
    await earlier.db
      .insertInto('oauth_tokens')
      .values([token('on-real-time', now - 10 * DAY), token('on-a-clock-ahead', now + 3_650 * DAY)])
      .execute();

    await migrateToLatest(earlier.db);
    const migratedBy = Date.now();

    const merchant = await earlier.db.selectFrom('merchants').select('secret_generation').where('receiver_id', '=', RECEIVER).executeTakeFirstOrThrow();
    expect(Number(merchant.secret_generation)).toBe(0);
    const rows = await earlier.db.selectFrom('oauth_tokens').select(['jti', 'secret_generation', 'wall_issued_at']).orderBy('jti').execute();
    const ahead = rows.find((r) => r.jti === 'on-a-clock-ahead')!;
    expect(rows.map((r) => [r.jti, Number(r.secret_generation)])).toEqual([
      ['on-a-clock-ahead', 0],
      ['on-real-time', 0],
    ]);
    expect(Number(rows.find((r) => r.jti === 'on-real-time')!.wall_issued_at)).toBe(now - 10 * DAY);
    expect(Number(ahead.wall_issued_at)).toBeGreaterThanOrEqual(now);
    expect(Number(ahead.wall_issued_at)).toBeLessThanOrEqual(migratedBy);
  });
});
