// Changes an account's settings or rotates its API key or receiver secret; every process drops its
// cached copy (this one after the commit, so a request that cached the old key meanwhile cannot
// keep it). A rotation may give the credential it replaces a grace period in which both work, so a
// merchant rolls to the new one without downtime; a second rotation ends the first one's grace.
// A secret's rotation counts its generation up: the access tokens the replaced secret obtained stop
// working with it, at once or when its grace ends (the bearer verifier checks each token's against
// the account's, domain/merchant.ts secretAuthenticates).
import { hashApiKey } from '../domain/credentials.js';
import { fieldError, notFound, validationError } from '../domain/errors.js';
import { newApiKey, newReceiverSecret } from '../domain/ids.js';
import { MAX_CREDENTIAL_GRACE_MS, type Merchant, type MerchantFeatures } from '../domain/merchant.js';
import { redirectUriProblem } from '../domain/oauth-redirect.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { findMerchantRow, updateMerchantRow } from '../store/merchants.js';
import { replaceRedirectUris } from '../store/oauth-redirect-uris.js';
import type { MerchantsTable } from '../store/schema.js';
import type { AppContext } from './context.js';
import { checkAccountUrls, checkedNotifyHosts } from './create-merchant.js';
import { API_KEY_TOPIC, MERCHANT_TOPIC, toMerchant } from './merchant-directory.js';

export interface MerchantChanges {
  name?: string;
  developer?: boolean;
  features?: Partial<MerchantFeatures>;
  notifyUrl?: string | null;
  /** Replace the hosts registered for notifications, as given (notify-destinations.ts notifyHostList); '' for none. */
  notifyHosts?: string;
  notifyApiVersion?: string;
  renditionUrl?: string | null;
  paymentMethods?: string[];
  users?: string[];
  /** Replace the API key; the new one is returned once. */
  rotateApiKey?: boolean;
  /** Replace the receiver secret; the new one is in the merchant returned. */
  rotateSecret?: boolean;
  /** How long a rotated credential keeps working beside its replacement (0: it stops at once). */
  graceMs?: number;
  /** Replace the OAuth redirect URIs (matched exactly by the authorization endpoint). */
  redirectUris?: string[];
}

const FEATURE_COLUMNS: Record<keyof MerchantFeatures, keyof MerchantsTable> = {
  confirm: 'feature_confirm',
  integrator: 'feature_integrator',
  refunds: 'feature_refunds',
  contractUrl: 'feature_contract_url',
  psp: 'feature_psp',
};

export async function updateMerchant(ctx: AppContext, receiverId: number, changes: MerchantChanges): Promise<{ merchant: Merchant; apiKey?: string }> {
  const badUris = (changes.redirectUris ?? []).flatMap((uri) => {
    const problem = redirectUriProblem(uri);
    return problem ? [{ field: 'redirect_uri', message: `${uri} ${problem}` }] : [];
  });
  if (badUris.length > 0) throw validationError(badUris);
  const notifyHosts = changes.notifyHosts !== undefined ? checkedNotifyHosts(changes.notifyHosts) : undefined;
  return ctx.feed.transaction(ctx.db, async (trx, publish) => {
    const before = await findMerchantRow(trx, receiverId);
    if (!before) throw notFound('Merchant');
    // A URL is checked when it changes, and both when the account changes mode. Hosts removed are
    // not: a URL on one is refused before each attempt, as the hosts' list says.
    const recheck = changes.developer !== undefined;
    checkAccountUrls(
      ctx,
      {
        notify_url: changes.notifyUrl !== undefined ? changes.notifyUrl : recheck ? before.notify_url : null,
        rendition_url: changes.renditionUrl !== undefined ? changes.renditionUrl : recheck ? before.rendition_url : null,
      },
      {
        developer: changes.developer ?? before.developer === 1,
        notifyHosts: notifyHosts ?? (JSON.parse(before.notify_hosts) as string[]),
        notifyUrl: changes.notifyUrl !== undefined ? changes.notifyUrl : before.notify_url,
      },
    );
    const set: Partial<MerchantsTable> = { updated_at: ctx.clock.now().getTime() };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.developer !== undefined) set.developer = changes.developer ? 1 : 0;
    if (changes.notifyUrl !== undefined) set.notify_url = changes.notifyUrl;
    if (notifyHosts !== undefined) set.notify_hosts = JSON.stringify(notifyHosts);
    if (changes.notifyApiVersion !== undefined) set.notify_api_version = changes.notifyApiVersion;
    if (changes.renditionUrl !== undefined) set.rendition_url = changes.renditionUrl;
    if (changes.paymentMethods !== undefined) set.payment_methods = JSON.stringify(changes.paymentMethods);
    if (changes.users !== undefined) set.users = JSON.stringify(changes.users);
    for (const [feature, on] of Object.entries(changes.features ?? {})) {
      (set as Record<string, number>)[FEATURE_COLUMNS[feature as keyof MerchantFeatures]] = on ? 1 : 0;
    }
    let apiKey: string | undefined;
    const graceMs = changes.graceMs ?? 0;
    if (graceMs < 0 || graceMs > MAX_CREDENTIAL_GRACE_MS) throw fieldError('grace', `must be between 0 and ${MAX_CREDENTIAL_GRACE_MS / 86_400_000} days`);
    const until = graceMs > 0 ? wallClockMs(ctx.clock) + graceMs : null;
    if (changes.rotateApiKey) {
      apiKey = newApiKey(ctx.random);
      set.api_key_hash = hashApiKey(apiKey);
      set.api_key_enc = ctx.secrets.seal(apiKey);
      set.previous_api_key_hash = until === null ? null : before.api_key_hash;
      set.previous_api_key_until = until;
      await publish(API_KEY_TOPIC, before.api_key_hash);
      if (before.previous_api_key_hash !== null) await publish(API_KEY_TOPIC, before.previous_api_key_hash);
    }
    if (changes.rotateSecret) {
      set.secret_enc = ctx.secrets.seal(newReceiverSecret(ctx.random));
      set.previous_secret_enc = until === null ? null : before.secret_enc;
      set.previous_secret_until = until;
      set.secret_generation = before.secret_generation + 1;
    }
    if (changes.redirectUris !== undefined) await replaceRedirectUris(trx, receiverId, [...new Set(changes.redirectUris)], set.updated_at!);
    await updateMerchantRow(trx, receiverId, set);
    await publish(MERCHANT_TOPIC, String(receiverId));
    const after = (await findMerchantRow(trx, receiverId))!;
    return { merchant: toMerchant(after, ctx.secrets), apiKey };
  });
}
