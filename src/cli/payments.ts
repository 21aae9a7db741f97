// `quipu payments list|show|mark-paid|pay`: an account's payments, one in full, and the merchant's
// action on one payment, for operators at the command line.
import { Command } from 'commander';
import { markPaid } from '../app/mark-paid.js';
import { getPayerPayment } from '../app/payer-payment.js';
import { payCommand } from './pay.js';
import { showPayment } from './payment-line.js';
import { paymentListCommand } from './payment-list.js';
import { paymentShowCommand } from './payment-show.js';
import { withRuntime } from './runtime.js';

export function paymentsCommand(): Command {
  const payments = new Command('payments').description('act on payments');
  payments
    .command('mark-paid <payment_id>')
    .description('the merchant declares the payment paid by other means (status_detail marked-paid-by-receiver)')
    .action(async (id: string) =>
      withRuntime(async (ctx) => {
        const { merchant } = await getPayerPayment(ctx, id);
        showPayment(await markPaid(ctx, merchant, id));
      }),
    );
  payments.addCommand(payCommand());
  payments.addCommand(paymentListCommand());
  payments.addCommand(paymentShowCommand());
  return payments;
}
