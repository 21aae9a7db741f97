// On first start with an empty database, a developer-mode demo account, so `npm start` is enough
// to begin integrating; with the DEMO_* settings, the same credentials at every fresh start.
import { DEMO_ACCOUNT_NAME, DEMO_USER } from '../config.js';
import { countMerchants } from '../store/merchants.js';
import { lockSetting } from '../store/setting-lock.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';
import type { DashboardCredentials } from './add-dashboard-user.js';
import { createMerchantWithUser, type MerchantCredentials } from './create-merchant.js';

export { DEMO_USER };

/** Held while an empty database is given its demo account: servers started together make one. */
const DEMO_ACCOUNT_LOCK = 'demo_account';

/** The demo account's credentials, dashboard sign-in included, when it is created now; undefined afterwards. */
export async function ensureDemoAccount(ctx: AppContext): Promise<(MerchantCredentials & DashboardCredentials) | undefined> {
  return inTransaction(ctx.db, async (trx) => {
    await lockSetting(trx, DEMO_ACCOUNT_LOCK, '');
    if ((await countMerchants(trx)) > 0) return undefined;
    const { password, ...fixed } = ctx.config.demoCredentials;
    const { credentials } = await createMerchantWithUser(
      { ...ctx, db: trx },
      {
        name: DEMO_ACCOUNT_NAME,
        developer: true,
        features: { confirm: true, refunds: true, integrator: true, contractUrl: true },
        users: [DEMO_USER],
        fixed,
      },
      { email: DEMO_USER, password, developerDemo: ctx.config.sandbox },
    );
    return credentials;
  });
}
