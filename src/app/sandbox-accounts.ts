// Throwaway developer-mode accounts for test suites (docs/testing-in-ci.md): one per test or per
// suite, each with its own records, clock and receivers, created in milliseconds and removed with
// everything of theirs in one transaction. Only where SANDBOX is on, and only the accounts it made
// (merchants.sandbox_made): the installation's own developer-mode accounts, the demo account among
// them, are as unknown to it as accounts that do not exist. Each action's audit record commits with it.
import type { AuditRecord } from '../domain/audit.js';
import { DomainError, type FieldError, notFound, validationError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { fixtureProblems, type SandboxFixtures } from '../domain/sandbox-fixtures.js';
import { ACCOUNT_CLOCK_TOPIC } from '../runtime/account-clock-feed.js';
import type { Kysely } from 'kysely';
import type { Publish } from '../runtime/invalidation-feed.js';
import { deleteAccountRecords } from '../store/account-records.js';
import { deleteAccountSnapshots } from '../store/account-snapshots.js';
import { findMerchantRow } from '../store/merchants.js';
import type { DB, MerchantRow } from '../store/schema.js';
import { inTransaction } from '../store/transaction.js';
import { type AuditActor, auditInTransaction, logAudit } from './audit.js';
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
 * Creates the account, then its fixtures. One 400 names every problem: `found` (what the transport's
 * schema found), the fixtures' problems as a whole, and what the API's rules refuse in each fixture's
 * request, which are checked on the account they would belong to. So the account is opened unless a
 * member of its own is refused; a refused fixture (a 400 naming its path) removes it and whatever
 * was made of it: nothing of a refused request survives.
 */
export async function createSandboxAccount(
  ctx: AppContext,
  request: SandboxAccountRequest,
  by: AuditActor,
  found: readonly FieldError[] = [],
): Promise<SandboxAccount> {
  requireSandbox(ctx);
  const refunds = request.refunds ?? false;
  const problems = [...found, ...(request.fixtures ? fixtureProblems(request.fixtures, { refunds }) : [])];
  if (problems.length > 0 && (!request.fixtures || problems.some((p) => !p.field.startsWith('fixtures.')))) throw validationError(problems);
  const { merchant, account } = await openAccount(
    ctx,
    request,
    { name: request.name ?? 'Sandbox account', developer: true, sandboxMade: true, notifyUrl: request.notifyUrl ?? null, features: { refunds } },
    by,
  );
  if (!request.fixtures) return account;
  try {
    return { ...account, fixtures: await createFixtures(ctx, merchant, request.fixtures, problems) };
  } catch (error) {
    await deleteSandboxAccount(ctx, merchant.receiverId, by);
    throw error;
  }
}

/** The account, with its dashboard owner if asked for, and its audit record, in one transaction. */
async function openAccount(
  ctx: AppContext,
  request: SandboxAccountRequest,
  input: NewMerchant,
  by: AuditActor,
): Promise<{ merchant: Merchant; account: SandboxAccount }> {
  let record: AuditRecord | undefined;
  const recorded = async (trx: Kysely<DB>, merchant: Merchant) => {
    record = await auditInTransaction(ctx, trx, { ...by, receiverId: merchant.receiverId, action: 'sandbox.account.create', target: null, outcome: 'ok' });
  };
  if (!request.dashboard) {
    const { merchant, credentials } = await inTransaction(ctx.db, async (trx) => {
      const made = await createMerchant(ctx, input, trx);
      await recorded(trx, made.merchant);
      return made;
    });
    logAudit(ctx, record!);
    return { merchant, account: { receiver_id: credentials.receiver_id, secret: credentials.secret, api_key: credentials.api_key } };
  }
  const { merchant, credentials } = await createMerchantWithUser(ctx, input, {}, recorded);
  logAudit(ctx, record!);
  const account = { receiver_id: credentials.receiver_id, secret: credentials.secret, api_key: credentials.api_key };
  return { merchant, account: { ...account, dashboard: { email: credentials.email, password: credentials.password } } };
}

/** An account the sandbox made; any other, the installation's own developer-mode accounts included, is not found. */
export async function sandboxAccountRow(trx: Kysely<DB>, receiverId: number): Promise<MerchantRow> {
  const row = await findMerchantRow(trx, receiverId);
  if (!row?.sandbox_made) throw notFound('Account');
  return row;
}

/** Every process forgets what it holds of the account as `row` had it: its directory entries (by id and by key) and its clock. */
export async function publishAccountChange(publish: Publish, row: MerchantRow): Promise<void> {
  await publish(MERCHANT_TOPIC, String(row.receiver_id));
  await publish(API_KEY_TOPIC, row.api_key_hash);
  if (row.previous_api_key_hash !== null) await publish(API_KEY_TOPIC, row.previous_api_key_hash);
  await publish(ACCOUNT_CLOCK_TOPIC, String(row.receiver_id));
}

/** Removes an account the sandbox made and every record of it (ACCOUNT_RECORDS), and its snapshots, in one transaction; then its request log. */
export async function deleteSandboxAccount(ctx: AppContext, receiverId: number, by: AuditActor): Promise<void> {
  requireSandbox(ctx);
  const record = await ctx.feed.transaction(ctx.db, async (trx, publish) => {
    const row = await sandboxAccountRow(trx, receiverId);
    await deleteAccountRecords(trx, receiverId);
    // Not account records themselves, so that a restore keeps them: they go with the account.
    await deleteAccountSnapshots(trx, receiverId);
    await publishAccountChange(publish, row);
    return auditInTransaction(ctx, trx, { ...by, receiverId, action: 'sandbox.account.delete', target: null, outcome: 'ok' });
  });
  // Once the account is gone: a row of its request log written meanwhile is either there to forget or
  // finds the account gone (app/table-request-records.ts).
  await ctx.requestRecords.kept?.forget(receiverId);
  logAudit(ctx, record);
}
