// `quipu payments show <payment_id>`: one payment in full, for an operator at the command line:
// every field of the API's Payment resource, then what happened to it (the payer's transfers at the
// banks, its refunds) and every message sent about it with how its delivery went.
import { Command } from 'commander';
import { getPayerPayment } from '../app/payer-payment.js';
import { getPaymentHistory } from '../app/payment-history.js';
import { eventView } from '../delivery/event-view.js';
import { attemptView } from '../delivery/message-view.js';
import { formatAmount } from '../domain/money.js';
import { paymentResource } from '../http/payment-resource.js';
import { lastAttempt } from './attempt-line.js';
import { printHuman } from './merchant-view.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

export function paymentShowCommand(): Command {
  return new Command('show')
    .description('show one payment: every field, its transfers, refunds, and the messages sent about it with their attempts')
    .argument('<payment_id>')
    .option('--json', 'print JSON: {"payment": <as GET /v3/payments/{id}>, "refunded", "transfers": [...], "refunds": [...], "events": [...]}')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const { merchant } = await getPayerPayment(ctx, id);
        const history = await getPaymentHistory(ctx, merchant, id);
        const { payment } = history;
        const view = {
          payment: paymentResource(ctx.config.publicBaseUrl, payment, merchant),
          // Not a field of the Payment resource: what its refunds gave back, in the payment's currency.
          refunded: formatAmount(payment.refunded),
          transfers: history.attempts.map((a) => ({
            attempt_id: a.attemptId,
            bank_id: a.bankId,
            state: a.state,
            started_at: a.startedAt.toISOString(),
            failure: a.failure,
          })),
          refunds: history.refunds.map((r) => ({ refund_id: r.refundId, amount: formatAmount(r.amount), created_at: r.createdAt.toISOString() })),
          events: history.messages.map(({ message, attempts }) => ({ ...eventView(message), attempt_log: attempts.map(attemptView) })),
        };
        if (options.json) return console.log(JSON.stringify(view));
        printHuman({ ...view.payment, refunded: `${view.refunded} ${payment.currency}` });
        console.log('\ntransfers');
        printTable(
          [
            { header: 'ATTEMPT', value: (t) => t.attempt_id },
            { header: 'BANK', value: (t) => t.bank_id },
            { header: 'STATE', value: (t) => t.state },
            { header: 'STARTED', value: (t) => t.started_at },
            { header: 'FAILURE', value: (t) => t.failure },
          ],
          view.transfers,
        );
        console.log('\nrefunds');
        printTable(
          [
            { header: 'REFUND', value: (r) => r.refund_id },
            { header: 'AMOUNT', value: (r) => `${r.amount} ${payment.currency}`, right: true },
            { header: 'CREATED', value: (r) => r.created_at },
          ],
          view.refunds,
        );
        console.log('\nevents');
        printTable(
          [
            { header: 'ID', value: (e) => e.id },
            { header: 'KIND', value: (e) => e.kind },
            { header: 'STATUS', value: (e) => e.status },
            { header: 'ATTEMPTS', value: (e) => e.attempts, right: true },
            { header: 'LAST ATTEMPT', value: (e) => lastAttempt(e.attempt_log.at(-1)) },
            { header: 'DESTINATION', value: (e) => e.destination },
          ],
          view.events,
        );
      }),
    );
}
