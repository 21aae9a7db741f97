// `quipu scenarios list|run <id> [--receiver <id>]`: DemoBank's scenarios, and one run on a
// developer-mode account (account-choice.ts) from the command line (app/run-scenario.ts, as the
// dashboard's Run button and POST /sandbox/scenarios/{id}/run do), printing what it created and how
// it ended. A scenario whose expected answer is a refusal (charge-refused) says it was refused as
// expected and exits 0.
import { Argument, Command } from 'commander';
import { REFUSING_SCENARIOS, runScenario, type ScenarioRun } from '../app/run-scenario.js';
import { SCENARIOS } from '../bank/demo-bank-scenarios.js';
import { DomainError } from '../domain/errors.js';
import { wireStatus } from '../domain/mandate-status.js';
import { scenarioRunView } from '../http/sandbox/scenarios.js';
import { type AccountChoice, chosenAccount, withAccountChoice } from './account-choice.js';
import { showPayment } from './payment-line.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

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
  withAccountChoice(
    scenarios
      .command('run')
      .description(
        "create the scenario's payment or subscription and take it through the payer's and DemoBank's steps; callbacks go to the account's notify_url",
      )
      .addArgument(new Argument('<scenario_id>').choices(SCENARIOS.map((s) => s.id))),
  )
    .option('--json', 'print JSON, as POST /sandbox/scenarios/{id}/run answers')
    .action(async (id: string, options: AccountChoice & { json?: boolean }) =>
      withRuntime(async (ctx) => {
        // Chosen before the run: a refusal to choose is no scenario's expected refusal.
        const account = await chosenAccount(ctx, options, true);
        let run: ScenarioRun;
        try {
          run = await runScenario(ctx, account, id);
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
