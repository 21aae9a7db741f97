// `quipu payments mark-paid <id>` and `quipu demobank confirm|fail <id>`: the merchant's and the
// test bank's actions on one payment, for operators and developers at the command line.
import { Command } from 'commander';
import { markPaid } from '../app/mark-paid.js';
import { getPayerPayment } from '../app/payer-payment.js';
import { settleTransfer } from '../app/settle-transfer.js';
import type { DemoBankDecision } from '../bank/demo-bank.js';
import type { Payment } from '../domain/payment.js';
import { withRuntime } from './runtime.js';

const show = (payment: Payment) => console.log(`${payment.paymentId}  ${payment.status}/${payment.statusDetail}`);

export function paymentsCommand(): Command {
  const payments = new Command('payments').description('act on payments');
  payments
    .command('mark-paid <payment_id>')
    .description('the merchant declares the payment paid by other means (status_detail marked-paid-by-receiver)')
    .action(async (id: string) =>
      withRuntime(async (ctx) => {
        const { merchant } = await getPayerPayment(ctx, id);
        show(await markPaid(ctx, merchant, id));
      }),
    );
  return payments;
}

export function demoBankCommand(): Command {
  const demobank = new Command('demobank').description('the test bank of developer-mode accounts');
  const settle = (decision: DemoBankDecision) => async (id: string) =>
    withRuntime(async (ctx) => {
      const { merchant } = await getPayerPayment(ctx, id);
      show(await settleTransfer(ctx, merchant, id, decision));
    });
  const scope = 'developer-mode accounts, where SANDBOX is on';
  demobank.command('confirm <payment_id>').description(`DemoBank confirms the payment's uncertain transfer: the credit is reconciled (${scope})`).action(settle('confirm'));
  demobank.command('fail <payment_id>').description(`DemoBank fails the payment's uncertain transfer: the payment is pending again (${scope})`).action(settle('fail'));
  return demobank;
}
