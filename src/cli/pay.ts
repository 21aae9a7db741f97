// `quipu payments pay <id> [--fail | --uncertain]`: pays a payment at DemoBank from the command
// line, through the payer's own steps (app/pay-with-demobank.ts), and prints its status after.
import { Command, Option } from 'commander';
import { type DemoBankOutcome, payWithDemoBank } from '../app/pay-with-demobank.js';
import { showPayment } from './payment-line.js';
import { withRuntime } from './runtime.js';

export function payCommand(): Command {
  return new Command('pay')
    .argument('<payment_id>')
    .description('pay the payment at DemoBank as a payer would (developer-mode accounts): the transfer is executed, reconciled and notified')
    .addOption(new Option('--fail', 'DemoBank fails the transfer (coordinates 99 99 99): the payment stays pending').conflicts('uncertain'))
    .addOption(new Option('--uncertain', 'DemoBank leaves the transfer uncertain: the payment is verifying until `quipu demobank confirm|fail`'))
    .action(async (id: string, options: { fail?: boolean; uncertain?: boolean }) =>
      withRuntime(async (ctx) => {
        const outcome: DemoBankOutcome = options.fail ? 'fail' : options.uncertain ? 'uncertain' : 'pay';
        showPayment(await payWithDemoBank(ctx, id, outcome));
      }),
    );
}
