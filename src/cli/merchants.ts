// `quipu merchants create|list|show|update|revoke-tokens`: collection accounts from the command line.
import { Command, InvalidArgumentError } from 'commander';
import { createMerchantWithUser } from '../app/create-merchant.js';
import { revokeAccountTokens } from '../app/revoke-account-tokens.js';
import { updateMerchant, type MerchantChanges } from '../app/update-merchant.js';
import { isEmail, isWebUrl } from '../domain/formats.js';
import { FEATURE_NAMES, type MerchantFeatures, NOTIFY_API_VERSIONS } from '../domain/merchant.js';
import { redirectUriProblem } from '../domain/oauth-redirect.js';
import { findPaymentMethod } from '../domain/payment-methods.js';
import { listMerchantRows } from '../store/merchants.js';
import { redirectUrisOf } from '../store/oauth-redirect-uris.js';
import { toMerchant } from '../app/merchant-directory.js';
import { notFound } from '../domain/errors.js';
import { merchantView, printHuman } from './merchant-view.js';
import { graceDuration, oneOf, receiverId } from './options.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

// Commander turns --contract-url into options.contractUrl: the flags map onto feature names.
const FEATURE_FLAGS: Record<keyof MerchantFeatures, { flag: string; help: string }> = {
  confirm: { flag: 'confirm', help: 'contracted payment confirmation' },
  integrator: { flag: 'integrator', help: 'contracted the integrator feature (may create receivers)' },
  refunds: { flag: 'refunds', help: 'collects in a provider account (refunds allowed)' },
  contractUrl: { flag: 'contract-url', help: 'enabled for contract_url' },
  psp: { flag: 'psp', help: 'payment-service provider (psp_client_merchant_name required)' },
};

const collect = (value: string, previous: string[] = []) => [...previous, value];

function email(value: string, previous: string[] = []): string[] {
  if (!isEmail(value)) throw new InvalidArgumentError(`${value} is not an email address`);
  return collect(value, previous);
}

function method(value: string, previous: string[] = []): string[] {
  const found = findPaymentMethod(value);
  if (!found) throw new InvalidArgumentError(`${value} is not a payment method`);
  return collect(found.id, previous);
}

function url(value: string): string {
  if (!isWebUrl(value)) throw new InvalidArgumentError(`${value} is not an http(s) URL`);
  return value;
}

function redirectUri(value: string, previous: string[] = []): string[] {
  const problem = redirectUriProblem(value);
  if (problem) throw new InvalidArgumentError(`${value} ${problem}`);
  return collect(value, previous);
}

function features(options: Record<string, unknown>): Partial<MerchantFeatures> {
  const out: Partial<MerchantFeatures> = {};
  for (const name of FEATURE_NAMES) {
    const value = options[name];
    if (typeof value === 'boolean') out[name] = value;
  }
  return out;
}

function output(value: object, json: boolean): void {
  if (json) console.log(JSON.stringify(value));
  else printHuman(value as Record<string, unknown>);
}

export function merchantsCommand(): Command {
  const merchants = new Command('merchants').description('manage collection accounts');

  const create = merchants
    .command('create')
    .description('create a collection account (developer mode unless --production) and print its credentials and its dashboard sign-in')
    .requiredOption('--name <name>', 'account name')
    .option('--email <email>', "the dashboard user's email (default owner-<receiver_id>@quipu.local)", (value: string) => email(value)[0]!)
    .option('--production', 'a regular account: real banks, no test bank')
    .option('--notify-url <url>', 'default notification URL', url)
    .option('--notify-hosts <hosts>', 'hosts registered for notifications, comma-separated (names, *.name wildcards, addresses)')
    .option('--notify-api-version <version>', 'default notification API version', oneOf(NOTIFY_API_VERSIONS))
    .option('--rendition-url <url>', 'where accountability reports are sent when funds are delivered', url)
    .option('--user <email>', 'a user allowed to be responsible for collections (repeatable)', email)
    .option('--payment-method <id>', 'a payment method the account offers (repeatable; default all)', method)
    .option('--json', 'print one JSON object');
  for (const { flag, help } of Object.values(FEATURE_FLAGS)) create.option(`--${flag}`, help);
  create.action(async (options) =>
    withRuntime(async (ctx) => {
      const { credentials } = await createMerchantWithUser(
        ctx,
        {
          name: options.name,
          developer: !options.production,
          features: features(options),
          notifyUrl: options.notifyUrl,
          notifyHosts: options.notifyHosts,
          notifyApiVersion: options.notifyApiVersion,
          renditionUrl: options.renditionUrl,
          users: options.user,
          paymentMethods: options.paymentMethod,
        },
        { email: options.email },
      );
      output(credentials, options.json === true);
    }),
  );

  merchants
    .command('list')
    .description('list collection accounts')
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const views = (await listMerchantRows(ctx.db)).map((row) => merchantView(toMerchant(row, ctx.secrets), false));
        if (options.json) return console.log(JSON.stringify(views));
        printTable(
          [
            { header: 'RECEIVER_ID', value: (v) => v.receiver_id },
            { header: 'MODE', value: (v) => (v.developer ? 'developer' : 'production') },
            { header: 'NAME', value: (v) => v.name },
          ],
          views,
        );
      }),
    );

  merchants
    .command('show <receiver_id>')
    .description('show one collection account')
    .option('--show-secret', 'include the receiver secret')
    .option('--json', 'print JSON')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const merchant = await ctx.merchants.byReceiverId(receiverId(id));
        if (!merchant) throw notFound('Merchant');
        output(merchantView(merchant, options.showSecret === true), options.json === true);
      }),
    );

  const update = merchants
    .command('update <receiver_id>')
    .description('change a collection account')
    .option('--name <name>', 'account name')
    .option('--developer', 'switch to developer mode')
    .option('--production', 'switch to production mode')
    .option('--notify-url <url>', 'default notification URL', url)
    .option('--no-notify-url', 'remove the default notification URL')
    .option('--notify-hosts <hosts>', 'replace the hosts registered for notifications, comma-separated (names, *.name wildcards, addresses; "" for none)')
    .option('--notify-api-version <version>', 'default notification API version', oneOf(NOTIFY_API_VERSIONS))
    .option('--rendition-url <url>', 'where accountability reports are sent when funds are delivered', url)
    .option('--no-rendition-url', 'send no accountability reports')
    .option('--user <email>', 'replace the users allowed to be responsible for collections (repeatable)', email)
    .option('--payment-method <id>', 'replace the payment methods offered (repeatable)', method)
    .option('--rotate-api-key', 'issue a new API key (printed once); the old one stops working at once, or after --grace')
    .option('--rotate-secret', 'issue a new receiver secret (printed once); the old one stops signing at once, or after --grace')
    .option(
      '--grace <duration>',
      'with a rotation: how long the replaced key or secret keeps working beside the new one (30m, 24h, 7d; at most 30d)',
      graceDuration,
    )
    .option('--redirect-uri <uri>', 'replace the OAuth redirect URIs, matched exactly (repeatable)', redirectUri)
    .option('--no-redirect-uri', 'remove every OAuth redirect URI')
    .option('--json', 'print JSON');
  for (const { flag, help } of Object.values(FEATURE_FLAGS)) {
    update.option(`--${flag}`, `turn on: ${help}`);
    update.option(`--no-${flag}`, `turn off: ${help}`);
  }
  update.action(async (id: string, options) =>
    withRuntime(async (ctx) => {
      if (options.developer && options.production) throw new InvalidArgumentError('--developer and --production exclude each other');
      const changes: MerchantChanges = {
        name: options.name,
        developer: options.developer ? true : options.production ? false : undefined,
        features: features(options),
        notifyUrl: options.notifyUrl === false ? null : options.notifyUrl,
        notifyHosts: options.notifyHosts,
        notifyApiVersion: options.notifyApiVersion,
        renditionUrl: options.renditionUrl === false ? null : options.renditionUrl,
        users: options.user,
        paymentMethods: options.paymentMethod,
        rotateApiKey: options.rotateApiKey === true,
        rotateSecret: options.rotateSecret === true,
        graceMs: options.grace,
        redirectUris: options.redirectUri === false ? [] : options.redirectUri,
      };
      const { merchant, apiKey } = await updateMerchant(ctx, receiverId(id), changes);
      const redirectUris = await redirectUrisOf(ctx.db, merchant.receiverId);
      output(
        { ...merchantView(merchant, options.rotateSecret === true), redirect_uris: redirectUris, ...(apiKey ? { api_key: apiKey } : {}) },
        options.json === true,
      );
    }),
  );

  merchants
    .command('revoke-tokens <receiver_id>')
    .description('revoke every access token of the account at once (its secret still obtains new ones: rotate it too if it may have leaked)')
    .option('--json', 'print JSON')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const account = receiverId(id);
        output({ receiver_id: account, revoked_tokens: await revokeAccountTokens(ctx, account) }, options.json === true);
      }),
    );
  return merchants;
}
