// On first start with an empty database, a developer-mode demo account, so `npm start` is enough
// to begin integrating; with the DEMO_* settings, the same credentials at every fresh start. It has
// one subscription whose mandate is signed at DemoBank (ENABLED), under a fixed id: the one the
// charge-intent example of /docs names, so that "Try it out" charges it as the example stands.
import { DEMO_RUT } from '../bank/demo-bank-scenarios.js';
import { DEMO_ACCOUNT_NAME, DEMO_USER } from '../config.js';
import { standInReceiver } from '../domain/stand-in-receivers.js';
import { countMerchants } from '../store/merchants.js';
import { lockSetting } from '../store/setting-lock.js';
import { inTransaction } from '../store/transaction.js';
import { type AppContext, forAccount, withDb } from './context.js';
import type { DashboardCredentials } from './add-dashboard-user.js';
import { createMerchantWithUser, type MerchantCredentials } from './create-merchant.js';
import { createSubscription } from './create-subscription.js';
import { DEMO_PAYER_EMAIL } from './pay-with-demobank.js';
import { signWithDemoBank } from './sign-with-demobank.js';

export { DEMO_USER };

/** The demo account's ENABLED subscription: what the charge-intent example of /docs charges (http/request-examples.ts). */
export const DEMO_SUBSCRIPTION_ID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

/** Its callbacks go to a name that never resolves: the events page shows them, and nothing leaves the machine (domain/stand-in-receivers.ts). */
const NO_RECEIVER = standInReceiver('demo');

/** Held while an empty database is given its demo account: servers started together make one. */
const DEMO_ACCOUNT_LOCK = 'demo_account';

/** The demo account's credentials, dashboard sign-in included, when it is created now; undefined afterwards. */
export async function ensureDemoAccount(ctx: AppContext): Promise<(MerchantCredentials & DashboardCredentials) | undefined> {
  const created = await inTransaction(ctx.db, async (trx) => {
    await lockSetting(trx, DEMO_ACCOUNT_LOCK, '');
    if ((await countMerchants(trx)) > 0) return undefined;
    const { password, ...fixed } = ctx.config.demoCredentials;
    const { credentials } = await createMerchantWithUser(
      withDb(ctx, trx),
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
  // DemoBank signs mandates for developer-mode accounts only where SANDBOX is on.
  if (created && ctx.config.sandbox) await demoSubscription(ctx, created.receiver_id);
  return created;
}

/** Signed as a payer signs at DemoBank, through the use cases the signing pages use. */
async function demoSubscription(given: AppContext, receiverId: number): Promise<void> {
  const ctx = forAccount(given, receiverId);
  const merchant = (await ctx.merchants.byReceiverId(receiverId))!;
  const raw = {
    name: 'Plan mensual de ejemplo',
    email: DEMO_PAYER_EMAIL,
    max_amount: 50000,
    currency: 'CLP',
    notify_url: `${NO_RECEIVER}/subscriptions/notify`,
    return_url: `${NO_RECEIVER}/subscriptions/signed`,
    cancel_url: `${NO_RECEIVER}/subscriptions/cancelled`,
  };
  await createSubscription(ctx, merchant, raw, [], [], DEMO_SUBSCRIPTION_ID);
  await signWithDemoBank(ctx, DEMO_SUBSCRIPTION_ID, DEMO_RUT, 'pay');
}
