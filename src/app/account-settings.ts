// What the dashboard's settings page reads: the account's OAuth redirect URIs, and, asked for with a
// POST, its credentials in clear: the API key (sealed beside its hash since migration 017; older
// keys cannot be shown) and the receiver secret, which is also the OAuth client secret.
import type { Merchant } from '../domain/merchant.js';
import { findMerchantRow } from '../store/merchants.js';
import { redirectUrisOf } from '../store/oauth-redirect-uris.js';
import type { AppContext } from './context.js';

export async function accountRedirectUris(ctx: AppContext, merchant: Merchant): Promise<string[]> {
  return redirectUrisOf(ctx.db, merchant.receiverId);
}

export async function revealCredentials(ctx: AppContext, merchant: Merchant): Promise<{ apiKey: string | null; secret: string }> {
  const row = await findMerchantRow(ctx.db, merchant.receiverId);
  return { apiKey: row?.api_key_enc ? ctx.secrets.open(row.api_key_enc) : null, secret: merchant.secret };
}
