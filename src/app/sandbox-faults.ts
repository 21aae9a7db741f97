// Faults on demand (developer mode, docs/sandbox-faults.md): an account sets, reads and removes the
// faults it wants, and its API requests take their refusals and dropped connections from counters
// that every process shares. The setting is read with the account and cached with it (the merchant
// directory, invalidated through the feed), so an account without faults costs nothing more.
import { DomainError, notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { countsRequests, type SandboxFaults } from '../domain/sandbox-faults.js';
import { findMerchantRow } from '../store/merchants.js';
import { type FaultCounters, readFaults, takeFault, writeFaults } from '../store/sandbox-faults.js';
import type { AppContext } from './context.js';
import { MERCHANT_TOPIC } from './merchant-directory.js';

/** What an API request of the account gets from its faults, before its handler runs. */
export type RequestFault = { refuse: NonNullable<SandboxFaults['api']> } | 'drop' | null;

export interface FaultState {
  faults: SandboxFaults | null;
  counters: FaultCounters;
}

/** Sets the account's faults (null: none), replacing any it had: the counts and the seed's draws start again. */
export async function setSandboxFaults(ctx: AppContext, receiverId: number, faults: SandboxFaults | null): Promise<FaultState> {
  if (!ctx.config.sandbox) throw new DomainError('forbidden', 'Faults on demand exist only where SANDBOX is on');
  await ctx.feed.transaction(ctx.db, async (trx, publish) => {
    const row = await findMerchantRow(trx, receiverId);
    if (!row) throw notFound('Account');
    // A production account's payers and merchant rely on it: it never misbehaves on purpose.
    if (!row.developer) throw new DomainError('forbidden', 'Only developer-mode accounts take faults on demand');
    await writeFaults(trx, receiverId, faults);
    await publish(MERCHANT_TOPIC, String(receiverId));
  });
  return sandboxFaultsOf(ctx, receiverId);
}

/** The account's faults and what is left of their counts. */
export async function sandboxFaultsOf(ctx: AppContext, receiverId: number): Promise<FaultState> {
  const state = await readFaults(ctx.db, receiverId);
  if (!state) throw notFound('Account');
  return state;
}

/**
 * What the account's faults do to one of its API requests: refuse it while refusals are left, else
 * drop its connection while drops are left. Only an account whose faults count requests asks the
 * database; any other gets null at once.
 */
export async function takeRequestFault(ctx: AppContext, merchant: Merchant): Promise<RequestFault> {
  const faults = ctx.merchants.faultsOf(merchant);
  if (!countsRequests(faults)) return null;
  if (faults!.api && (await takeFault(ctx.db, merchant.receiverId, 'refusal'))) return { refuse: faults!.api };
  if (faults!.dropConnection && (await takeFault(ctx.db, merchant.receiverId, 'drop'))) return 'drop';
  return null;
}

/** The faults of the account `receiverId` (null for none, or for an account that is not found): the delivery worker's look. */
export async function accountFaults(ctx: Pick<AppContext, 'merchants'>, receiverId: number): Promise<SandboxFaults | null> {
  const merchant = await ctx.merchants.byReceiverId(receiverId);
  return merchant ? ctx.merchants.faultsOf(merchant) : null;
}
