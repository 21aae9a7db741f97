// `quipu scenarios run <id> [--receiver <id>]`: runs one of DemoBank's scenarios on a
// developer-mode account from the command line (app/run-scenario.ts, as the dashboard's Run button
// and POST /sandbox/scenarios/{id}/run do) and prints what it created and how it ended.
import { Argument, Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { toMerchant } from '../app/merchant-directory.js';
import { runScenario } from '../app/run-scenario.js';
import { SCENARIOS } from '../bank/demo-bank-scenarios.js';
import { DomainError, notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { wireStatus } from '../domain/mandate-status.js';
import { scenarioRunView } from '../http/sandbox/scenarios.js';
import { listMerchantRows } from '../store/merchants.js';
import { receiverId } from './options.js';
import { showPayment } from './payment-line.js';
import { withRuntime } from './runtime.js';

/** The account named, or else the installation's only developer-mode account (the demo account of a first start). */
async function accountOf(ctx: AppContext, receiver: number | undefined): Promise<Merchant> {
  if (receiver !== undefined) {
    const merchant = await ctx.merchants.byReceiverId(receiver);
    if (!merchant) throw notFound('Merchant');
    return merchant;
  }
  const developers = (await listMerchantRows(ctx.db)).map((row) => toMerchant(row, ctx.secrets)).filter((m) => m.developer);
  if (developers.length === 1) return developers[0]!;
  const which = developers.length === 0 ? 'there is no developer-mode account' : `developer-mode accounts: ${developers.map((m) => m.receiverId).join(', ')}`;
  throw new DomainError('validation', `name the account with --receiver <receiver_id> (${which})`);
}

export function scenariosCommand(): Command {
  const scenarios = new Command('scenarios').description("DemoBank's scenarios (GET /sandbox/scenarios): run one on a developer-mode account");
  scenarios
    .command('run')
    .description("create the scenario's payment or subscription and take it through the payer's and DemoBank's steps; callbacks go to the account's notify_url")
    .addArgument(new Argument('<scenario_id>').choices(SCENARIOS.map((s) => s.id)))
    .option('--receiver <receiver_id>', 'the account (default: the only developer-mode account)', receiverId)
    .option('--json', 'print JSON, as POST /sandbox/scenarios/{id}/run answers')
    .action(async (id: string, options: { receiver?: number; json?: boolean }) =>
      withRuntime(async (ctx) => {
        const run = await runScenario(ctx, await accountOf(ctx, options.receiver), id);
        if (options.json) return console.log(JSON.stringify(scenarioRunView(run)));
        console.log(`${run.scenarioId}  ${run.outcome}`);
        if (run.subscription) console.log(`${run.subscription.subscriptionId}  ${wireStatus(run.subscription.state)} (${run.subscription.state})`);
        if (run.payment) showPayment(run.payment);
      }),
    );
  return scenarios;
}
