// The account a list command lists (and `quipu scenarios run` runs on), one rule for all of them:
// the one --receiver names, else the only account there is, else the command stops and names the
// accounts to choose from. An installation a CI suite tests against holds one throwaway account a
// test (POST /sandbox/accounts, `quipu sandbox create`), which would make every account ambiguous,
// so those are left out of the choice unless --include-sandbox; --receiver names any account.
import type { Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { DomainError, notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { listMerchantRows } from '../store/merchants.js';
import { receiverId } from './options.js';

export interface AccountChoice {
  receiver?: number;
  includeSandbox?: boolean;
}

/** The accounts named in the refusal, at most: the rest are counted. */
const NAMED = 10;

export function withAccountChoice(command: Command): Command {
  return command
    .option('--receiver <receiver_id>', 'the account (default: the only one to choose from)', receiverId)
    .option('--include-sandbox', 'count the accounts the sandbox made (POST /sandbox/accounts, quipu sandbox create) among those to choose from');
}

/** `developerOnly`: choose among developer-mode accounts (DemoBank's scenarios run on no other). */
export async function chosenAccount(ctx: AppContext, choice: AccountChoice, developerOnly = false): Promise<Merchant> {
  if (choice.receiver !== undefined) {
    const merchant = await ctx.merchants.byReceiverId(choice.receiver);
    if (!merchant) throw notFound('Merchant');
    return merchant;
  }
  const rows = (await listMerchantRows(ctx.db)).filter((row) => !developerOnly || row.developer === 1);
  const candidates = rows.filter((row) => choice.includeSandbox || row.sandbox_made !== 1).map((row) => row.receiver_id);
  if (candidates.length === 1) return (await ctx.merchants.byReceiverId(candidates[0]!))!;
  const noun = developerOnly ? 'developer-mode account' : 'account';
  const named = candidates.slice(0, NAMED).join(', ') + (candidates.length > NAMED ? ` and ${candidates.length - NAMED} more` : '');
  const leftOut = rows.length - candidates.length;
  const which = [candidates.length === 0 ? `there is no ${noun}` : `${noun}s: ${named}`];
  if (leftOut > 0) which.push(`${leftOut} made by the sandbox left out without --include-sandbox`);
  throw new DomainError('validation', `name the account with --receiver <receiver_id> (${which.join('; ')})`);
}
