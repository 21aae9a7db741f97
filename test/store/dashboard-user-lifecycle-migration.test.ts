// Migration 024 gives dashboard users a generated password's expiry and a disabled mark (none for
// the users already there: their passwords stay theirs), keeps their sessions, and withdraws the
// recovery codes of migration 021, whose unsalted 50-bit hashes ASVS 6.5.2 refuses and which cannot
// be carried to the salted form without the codes themselves.
import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrate.js';
import { earlyMerchantRow } from '../helpers/database.js';
import { useDatabaseBefore } from '../helpers/migration-test.js';

const earlier = useDatabaseBefore('024');

const T = 1_790_000_000_000;

describe('migration 024-dashboard-user-lifecycle', () => {
  it('leaves existing users and sessions as they were, and withdraws the old recovery codes', async () => {
    await earlier.db.insertInto('merchants').values(earlyMerchantRow(111111, T)).execute();
    await earlier.db
      .insertInto('dashboard_users')
      .values({
        user_id: 'u1',
        receiver_id: 111111,
        email: 'ana@shop.test',
        password_hash: '$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA',
        role: 'owner',
        totp_secret_enc: 'sealed',
        created_at: T,
        updated_at: T,
      })
      .execute();
    await earlier.db
      .insertInto('dashboard_sessions')
      .values({ token_hash: 'a'.repeat(64), user_id: 'u1', created_at: T, last_seen_at: T, second_factor_due: 0 })
      .execute();
    await earlier.db
      .insertInto('dashboard_recovery_codes')
      .values({ code_hash: createHash('sha256').update('abcde12345').digest('hex'), user_id: 'u1', used_at: null })
      .execute();

    expect((await migrateToLatest(earlier.db)).applied).toContain('024-dashboard-user-lifecycle');

    expect(await earlier.db.selectFrom('dashboard_users').select(['email', 'totp_secret_enc', 'password_expires_at', 'disabled_at']).execute()).toEqual([
      { email: 'ana@shop.test', totp_secret_enc: 'sealed', password_expires_at: null, disabled_at: null },
    ]);
    expect(await earlier.db.selectFrom('dashboard_sessions').select(['user_id', 'address', 'user_agent']).execute()).toEqual([
      { user_id: 'u1', address: null, user_agent: null },
    ]);
    expect(await earlier.db.selectFrom('dashboard_recovery_codes').selectAll().execute()).toEqual([]);
  });
});
