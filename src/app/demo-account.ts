// On first start with an empty database, a developer-mode demo account, so `npm start` is enough
// to begin integrating.
import { countMerchants } from '../store/merchants.js';
import type { AppContext } from './context.js';
import { createMerchant, type MerchantCredentials } from './create-merchant.js';

export const DEMO_USER = 'demo@quipu.local';

export async function ensureDemoAccount(ctx: AppContext): Promise<MerchantCredentials | undefined> {
  if ((await countMerchants(ctx.db)) > 0) return undefined;
  const { credentials } = await createMerchant(ctx, {
    name: 'Quipu demo store',
    developer: true,
    features: { confirm: true, refunds: true, integrator: true, contractUrl: true },
    users: [DEMO_USER],
  });
  return credentials;
}
