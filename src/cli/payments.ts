// `quipu payments mark-paid <id>`, `quipu demobank confirm|fail <id>` and `quipu demobank requests`:
// the merchant's and the test bank's actions on one payment, and what the test bank was asked, for
// operators and developers at the command line.
import { Command, InvalidArgumentError } from 'commander';
import { markPaid } from '../app/mark-paid.js';
import { getPayerPayment } from '../app/payer-payment.js';
import { settleTransfer } from '../app/settle-transfer.js';
import type { DemoBankDecision } from '../bank/demo-bank.js';
import { type DemoBankRequest, journaledRequests } from '../bank/demo-bank-books.js';
import type { Payment } from '../domain/payment.js';
import { withRuntime } from './runtime.js';

const show = (payment: Payment) => console.log(`${payment.paymentId}  ${payment.status}/${payment.statusDetail}`);

function positive(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('must be a whole number greater than zero');
  return Number(value);
}

const requestView = (r: DemoBankRequest) => ({
  request_id: r.requestId,
  asked_at: r.askedAt.toISOString(),
  operation: r.operation,
  order_id: r.orderId,
  payment_id: r.paymentId,
  cursor: r.cursor,
  answer: r.answer,
});

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
  demobank
    .command('requests')
    .description('what Quipu asked DemoBank (transfers, questions about them, credit reports) and what it answered, oldest first')
    .option('--payment <id>', 'only the requests about this payment')
    .option('--limit <n>', 'the latest this many', positive, 100)
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const views = (await journaledRequests(ctx.db, { paymentId: options.payment, limit: options.limit })).map(requestView);
        if (options.json) return console.log(JSON.stringify(views));
        for (const v of views) {
          const about = v.operation === 'credits' ? `after ${v.cursor ?? 'the first'}` : `order ${v.order_id}  payment ${v.payment_id}`;
          console.log(`#${v.request_id}  ${v.asked_at}  ${v.operation.padEnd(15)} ${about}  → ${v.answer}`);
        }
      }),
    );
  return demobank;
}
