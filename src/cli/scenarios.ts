// `quipu scenarios list|run <id> [--receiver <id>]`: DemoBank's scenarios, and one run on a
// developer-mode account from the command line (app/run-scenario.ts, as the dashboard's Run button
// and POST /sandbox/scenarios/{id}/run do), printing what it created and how it ended. A scenario
// whose expected answer is a refusal (charge-refused) says it was refused as expected and exits 0.
import { Argument, Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { toMerchant } from '../app/merchant-directory.js';
import { REFUSING_SCENARIOS, runScenario, type ScenarioRun } from '../app/run-scenario.js';
import { SCENARIOS } from '../bank/demo-bank-scenarios.js';
import { DomainError, notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { wireStatus } from '../domain/mandate-status.js';
import { scenarioRunView } from '../http/sandbox/scenarios.js';
import { listMerchantRows } from '../store/merchants.js';
import { receiverId } from './options.js';
import { showPayment } from './payment-line.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

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
  const scenarios = new Command('scenarios').description("DemoBank's scenarios (GET /sandbox/scenarios): list them, run one on a developer-mode account");
  scenarios
    .command('list')
    .description('every scenario: what triggers it and how it ends')
    .option('--json', 'print JSON, as GET /sandbox/scenarios answers')
    .action((options: { json?: boolean }) => {
      if (options.json) return console.log(JSON.stringify({ scenarios: SCENARIOS }));
      printTable(
        [
          { header: 'ID', value: (s) => s.id },
          { header: 'FLOW', value: (s) => s.flow },
          { header: 'OUTCOME', value: (s) => s.outcome },
        ],
        SCENARIOS,
      );
    });
  scenarios
    .command('run')
    .description("create the scenario's payment or subscription and take it through the payer's and DemoBank's steps; callbacks go to the account's notify_url")
    .addArgument(new Argument('<scenario_id>').choices(SCENARIOS.map((s) => s.id)))
    .option('--receiver <receiver_id>', 'the account (default: the only developer-mode account)', receiverId)
    .option('--json', 'print JSON, as POST /sandbox/scenarios/{id}/run answers')
    .action(async (id: string, options: { receiver?: number; json?: boolean }) =>
      withRuntime(async (ctx) => {
        let run: ScenarioRun;
        try {
          run = await runScenario(ctx, await accountOf(ctx, options.receiver), id);
        } catch (error) {
          if (!(REFUSING_SCENARIOS.includes(id) && error instanceof DomainError && error.kind === 'validation')) throw error;
          const errors = error.fields.map(({ field, message }) => ({ field, message }));
          if (options.json) return console.log(JSON.stringify({ scenario: id, outcome: 'refused', expected: true, errors }));
          console.log(`${id}  refused, as the scenario expects`);
          for (const e of errors) console.log(`  ${e.field}: ${e.message}`);
          return;
        }
        if (options.json) return console.log(JSON.stringify(scenarioRunView(run)));
        console.log(`${run.scenarioId}  ${run.outcome}`);
        if (run.subscription) console.log(`${run.subscription.subscriptionId}  ${wireStatus(run.subscription.state)} (${run.subscription.state})`);
        if (run.payment) showPayment(run.payment);
      }),
    );
  return scenarios;
}
