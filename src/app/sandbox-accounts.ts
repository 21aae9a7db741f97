// Throwaway developer-mode accounts for test suites (docs/testing-in-ci.md): one per test or per
// suite, each with its own records, clock and receivers, created in milliseconds and removed with
// everything of theirs in one transaction. Only where SANDBOX is on.
import { DomainError, notFound, validationError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { fixtureProblems, type SandboxFixtures } from '../domain/sandbox-fixtures.js';
import { ACCOUNT_CLOCK_TOPIC } from '../runtime/account-clock-feed.js';
import type { Kysely } from 'kysely';
import type { Publish } from '../runtime/invalidation-feed.js';
import { deleteAccountRecords } from '../store/account-records.js';
import { deleteAccountSnapshots } from '../store/account-snapshots.js';
import { findMerchantRow } from '../store/merchants.js';
import type { DB, MerchantRow } from '../store/schema.js';
import type { AppContext } from './context.js';
import { createMerchant, createMerchantWithUser, type NewMerchant } from './create-merchant.js';
import { API_KEY_TOPIC, MERCHANT_TOPIC } from './merchant-directory.js';
import { type CreatedFixtures, createFixtures } from './sandbox-fixtures.js';

export interface SandboxAccountRequest {
  name?: string;
  notifyUrl?: string;
  /** Also a dashboard owner, whose e-mail and generated password are answered once. */
  dashboard?: boolean;
  /** The account may refund (the refunds feature): what a reversed payment fixture needs. */
  refunds?: boolean;
  /** Records to start from, each in the state asked for (app/sandbox-fixtures.ts). */
  fixtures?: SandboxFixtures;
}

export interface SandboxAccount {
  receiver_id: number;
  secret: string;
  api_key: string;
  dashboard?: { email: string; password: string };
  fixtures?: CreatedFixtures;
}

export function requireSandbox(ctx: AppContext): void {
  if (!ctx.config.sandbox) throw new DomainError('forbidden', 'Sandbox accounts exist only where SANDBOX is on');
}

/**
 * Creates the account, then its fixtures. A fixture that cannot be made (a 400 naming its path)
 * removes the account and whatever was made of it: nothing of a refused request survives.
 */
export async function createSandboxAccount(ctx: AppContext, request: SandboxAccountRequest): Promise<SandboxAccount> {
  requireSandbox(ctx);
  const refunds = request.refunds ?? false;
  const problems = request.fixtures ? fixtureProblems(request.fixtures, { refunds }) : [];
  if (problems.length > 0) throw validationError(problems);
  const { merchant, account } = await openAccount(ctx, request, {
    name: request.name ?? 'Sandbox account',
    developer: true,
    notifyUrl: request.notifyUrl ?? null,
    features: { refunds },
  });
  if (!request.fixtures) return account;
  try {
    return { ...account, fixtures: await createFixtures(ctx, merchant, request.fixtures) };
  } catch (error) {
    await deleteSandboxAccount(ctx, merchant.receiverId);
    throw error;
  }
}

async function openAccount(ctx: AppContext, request: SandboxAccountRequest, input: NewMerchant): Promise<{ merchant: Merchant; account: SandboxAccount }> {
  if (!request.dashboard) {
    const { merchant, credentials } = await createMerchant(ctx, input);
    return { merchant, account: { receiver_id: credentials.receiver_id, secret: credentials.secret, api_key: credentials.api_key } };
  }
  const { merchant, credentials } = await createMerchantWithUser(ctx, input);
  const account = { receiver_id: credentials.receiver_id, secret: credentials.secret, api_key: credentials.api_key };
  return { merchant, account: { ...account, dashboard: { email: credentials.email, password: credentials.password } } };
}

/** The developer-mode account the sandbox acts on; a production account is not the sandbox's. */
export async function sandboxAccountRow(trx: Kysely<DB>, receiverId: number): Promise<MerchantRow> {
  const row = await findMerchantRow(trx, receiverId);
  if (!row) throw notFound('Account');
  if (!row.developer) throw new DomainError('forbidden', 'Only developer-mode accounts are changed through the sandbox');
  return row;
}

/** Every process forgets what it holds of the account as `row` had it: its directory entries (by id and by key) and its clock. */
export async function publishAccountChange(publish: Publish, row: MerchantRow): Promise<void> {
  await publish(MERCHANT_TOPIC, String(row.receiver_id));
  await publish(API_KEY_TOPIC, row.api_key_hash);
  if (row.previous_api_key_hash !== null) await publish(API_KEY_TOPIC, row.previous_api_key_hash);
  await publish(ACCOUNT_CLOCK_TOPIC, String(row.receiver_id));
}

/** Removes a developer-mode account and every record of it (ACCOUNT_RECORDS), and its snapshots, in one transaction. */
export async function deleteSandboxAccount(ctx: AppContext, receiverId: number): Promise<void> {
  requireSandbox(ctx);
  await ctx.feed.transaction(ctx.db, async (trx, publish) => {
    const row = await sandboxAccountRow(trx, receiverId);
    await deleteAccountRecords(trx, receiverId);
    // Not account records themselves, so that a restore keeps them: they go with the account.
    await deleteAccountSnapshots(trx, receiverId);
    await publishAccountChange(publish, row);
  });
}
