// Opens a collection account: from the CLI, for the demo account, and for an integrator's
// receivers. Returns the credentials once; afterwards only hashes and sealed secrets are kept.
import type { Kysely } from 'kysely';
import { hashApiKey } from '../domain/credentials.js';
import { FieldErrors, fieldError } from '../domain/errors.js';
import { isWebUrl } from '../domain/formats.js';
import { newApiKey, newReceiverId, newReceiverSecret, newUuid } from '../domain/ids.js';
import { DEFAULT_NOTIFY_API_VERSION, type Merchant, type MerchantFeatures } from '../domain/merchant.js';
import { type NotifyingAccount, notifyPolicy, notifyUrlProblem } from '../domain/network-address.js';
import { notifyHostList, notifyHostsProblem } from '../domain/notify-destinations.js';
import { PAYMENT_METHOD_IDS } from '../domain/payment-methods.js';
import { insertMerchant } from '../store/merchants.js';
import type { DB } from '../store/schema.js';
import { inTransaction } from '../store/transaction.js';
import { type DashboardCredentials, insertDashboardUser, passwordAndHash } from './add-dashboard-user.js';
import type { AppContext } from './context.js';
import { toMerchant } from './merchant-directory.js';

export interface NewMerchant {
  name: string;
  developer: boolean;
  features?: Partial<MerchantFeatures>;
  notifyUrl?: string | null;
  /** The hosts it registers for notifications, as given (notify-destinations.ts notifyHostList). */
  notifyHosts?: string;
  notifyApiVersion?: string;
  renditionUrl?: string | null;
  parentReceiverId?: number | null;
  paymentMethods?: string[];
  users?: string[];
  countryCode?: string;
  profile?: Record<string, string>;
  /** Credentials given rather than generated (the demo account's DEMO_* settings). */
  fixed?: { receiverId?: number; secret?: string; apiKey?: string };
  /** Made by the sandbox (POST /sandbox/accounts): the sandbox may delete, record and restore it. */
  sandboxMade?: boolean;
}

export interface MerchantCredentials {
  receiver_id: number;
  secret: string;
  api_key: string;
  developer: boolean;
}

export async function createMerchant(
  ctx: AppContext,
  input: NewMerchant,
  db: Kysely<DB> = ctx.db,
): Promise<{ merchant: Merchant; credentials: MerchantCredentials }> {
  const notifyHosts = checkedNotifyHosts(input.notifyHosts ?? '');
  checkAccountUrls(
    ctx,
    { notify_url: input.notifyUrl, rendition_url: input.renditionUrl },
    { developer: input.developer, notifyHosts, notifyUrl: input.notifyUrl ?? null },
  );
  const secret = input.fixed?.secret ?? newReceiverSecret(ctx.random);
  const apiKey = input.fixed?.apiKey ?? newApiKey(ctx.random);
  const now = ctx.clock.now().getTime();
  const features = { confirm: false, integrator: false, refunds: false, contractUrl: false, psp: false, ...input.features };
  const flag = (on: boolean) => (on ? 1 : 0);
  // Receiver ids are six random digits: retry the rare collision.
  for (let attempt = 0; ; attempt++) {
    const receiverId = input.fixed?.receiverId ?? newReceiverId(ctx.random);
    const row = {
      receiver_id: receiverId,
      name: input.name,
      secret_enc: ctx.secrets.seal(secret),
      api_key_hash: hashApiKey(apiKey),
      api_key_enc: ctx.secrets.seal(apiKey),
      developer: flag(input.developer),
      notify_url: input.notifyUrl ?? null,
      notify_hosts: JSON.stringify(notifyHosts),
      notify_api_version: input.notifyApiVersion ?? DEFAULT_NOTIFY_API_VERSION,
      rendition_url: input.renditionUrl ?? null,
      feature_confirm: flag(features.confirm),
      feature_integrator: flag(features.integrator),
      feature_refunds: flag(features.refunds),
      feature_contract_url: flag(features.contractUrl),
      feature_psp: flag(features.psp),
      parent_receiver_id: input.parentReceiverId ?? null,
      payment_methods: JSON.stringify(input.paymentMethods ?? PAYMENT_METHOD_IDS),
      users: JSON.stringify(input.users ?? []),
      collect_accounts: JSON.stringify([newUuid(ctx.random)]),
      country_code: input.countryCode ?? 'CL',
      profile: JSON.stringify(input.profile ?? {}),
      previous_api_key_hash: null,
      previous_api_key_until: null,
      previous_secret_enc: null,
      previous_secret_until: null,
      secret_generation: 0,
      clock_offset_ms: null,
      clock_version: 0,
      sandbox_faults: null,
      faults_refusals_left: 0,
      faults_drops_left: 0,
      faults_draws: 0,
      sandbox_made: flag(input.sandboxMade ?? false),
      created_at: now,
      updated_at: now,
    };
    if (!(await insertMerchant(db, row))) {
      if (input.fixed?.receiverId !== undefined) throw fieldError('receiver_id', `${receiverId} is another account's`);
      if (attempt < 20) continue;
      throw new Error('no free receiver id after 20 tries');
    }
    return {
      merchant: toMerchant(row, ctx.secrets),
      credentials: { receiver_id: receiverId, secret, api_key: apiKey, developer: input.developer },
    };
  }
}

/**
 * An account with its first dashboard user, in one transaction: `email` defaults to
 * owner-<receiver_id>@quipu.local, the password is generated unless given (`developerDemo`:
 * add-dashboard-user.ts's passwordAndHash). `alongside` writes the caller's own rows in that
 * transaction (the sandbox's audit record); the password is hashed before it begins.
 */
export async function createMerchantWithUser(
  ctx: AppContext,
  input: NewMerchant,
  user: { email?: string; password?: string; developerDemo?: boolean } = {},
  alongside: (trx: Kysely<DB>, merchant: Merchant) => Promise<void> = async () => {},
): Promise<{ merchant: Merchant; credentials: MerchantCredentials & DashboardCredentials }> {
  const password = await passwordAndHash(ctx, {
    given: user.password,
    context: { email: user.email ?? '', accountName: input.name },
    developerDemo: user.developerDemo,
  });
  return inTransaction(ctx.db, async (trx) => {
    const { merchant, credentials } = await createMerchant(ctx, input, trx);
    const email = await insertDashboardUser(ctx, trx, merchant.receiverId, user.email ?? `owner-${merchant.receiverId}@quipu.local`, password);
    await alongside(trx, merchant);
    return { merchant, credentials: { ...credentials, email, password: password.password } };
  });
}

/** The URLs an account is sent messages at, by field name; null or absent ones are not set. */
export type AccountUrls = Partial<Record<'notify_url' | 'rendition_url', string | null>>;

/**
 * An account's default notify_url and its rendition_url follow the rules of a payment's
 * notify_url for `account` as it will be: a web URL, public unless the account may notify private
 * addresses, within the installation's rules (the notify_url's host is registered by the URL
 * itself, the rendition_url's must be too). Every offending field is named.
 */
export function checkAccountUrls(ctx: AppContext, urls: AccountUrls, account: NotifyingAccount): void {
  const errors = new FieldErrors();
  const policy = notifyPolicy(account, ctx.config);
  for (const [field, url] of Object.entries(urls)) {
    if (url === null || url === undefined) continue;
    const problem = isWebUrl(url) ? notifyUrlProblem(url, policy) : 'must be an absolute http or https URL';
    if (problem) errors.add(field, problem);
  }
  errors.throwIfAny();
}

/** An account's notification hosts as given, as patterns; a 400 naming notify_hosts (and the bad entry) otherwise. */
export function checkedNotifyHosts(text: string): string[] {
  const list = notifyHostList(text);
  const problem = notifyHostsProblem(list);
  if (problem) throw fieldError('notify_hosts', problem);
  return list.hosts;
}
