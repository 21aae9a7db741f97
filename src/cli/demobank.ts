// `quipu demobank`: the test bank of developer-mode accounts at the command line. It settles the
// transfers it left uncertain (confirm|fail), decides mandates (approve|reject a pending one, revoke
// one as its payer would) and charges (settle|fail a debit now) as DemoBank would, and shows its
// books: the mandates signed at it and what Quipu asked it.
import { Command, InvalidArgumentError } from 'commander';
import { type ChargeDecision, decideDemoCharge, decideDemoMandate, type MandateDecision } from '../app/demobank-decisions.js';
import { getPayerPayment } from '../app/payer-payment.js';
import { settleTransfer } from '../app/settle-transfer.js';
import type { DemoBankDecision } from '../bank/demo-bank.js';
import { type DemoBankRequest, journaledRequests } from '../bank/demo-bank-books.js';
import { type DemoMandate, demoMandates } from '../bank/demo-bank-mandates.js';
import { wireStatus } from '../domain/mandate-status.js';
import { amountToNumber } from '../domain/money.js';
import { formatRut, parseRut } from '../domain/rut.js';
import { showPayment } from './payment-line.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

const SCOPE = 'developer-mode accounts, where SANDBOX is on';

function positive(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('must be a whole number greater than zero');
  return Number(value);
}

/** DemoBank keeps a payer's RUT as its logins write it: 11.111.111-1. */
function rut(value: string): string {
  const parsed = parseRut(value);
  if (!parsed) throw new InvalidArgumentError('is not a valid RUT');
  return formatRut(parsed);
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

const mandateView = (m: DemoMandate) => ({
  subscription_id: m.mandateId,
  personal_identifier: m.personalIdentifier,
  creditor: m.creditor,
  reference: m.reference,
  max_amount: amountToNumber(m.maxAmount),
  currency: m.currency,
  state: m.state,
  reason: m.reason,
  signed_at: m.signedAt.toISOString(),
  activates_at: m.activatesAt?.toISOString() ?? null,
});

function mandatesCommand(): Command {
  const mandates = new Command('mandates').description('the direct debit mandates payers signed at DemoBank');
  mandates
    .command('list')
    .description("DemoBank's mandates, newest first")
    .option('--rut <rut>', "only this payer's", rut)
    .option('--limit <n>', 'at most this many', positive, 100)
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const views = (await demoMandates(ctx.db, { personalIdentifier: options.rut, limit: options.limit })).map(mandateView);
        if (options.json) return console.log(JSON.stringify(views));
        printTable(
          [
            { header: 'SUBSCRIPTION', value: (v) => v.subscription_id },
            { header: 'STATE', value: (v) => v.state },
            { header: 'RUT', value: (v) => v.personal_identifier },
            { header: 'MAX AMOUNT', value: (v) => `${v.max_amount} ${v.currency}`, right: true },
            { header: 'CREDITOR', value: (v) => v.creditor },
            { header: 'REASON', value: (v) => v.reason },
          ],
          views,
        );
      }),
    );
  const decide = (decision: MandateDecision) => async (id: string) =>
    withRuntime(async (ctx) => {
      const subscription = await decideDemoMandate(ctx, id, decision);
      console.log(`${subscription.subscriptionId}  ${wireStatus(subscription.state)} (${subscription.state})`);
    });
  mandates
    .command('approve <subscription_id>')
    .description(`DemoBank approves a mandate waiting for its approval: the subscription is ENABLED (${SCOPE})`)
    .action(decide('approve'));
  mandates
    .command('reject <subscription_id>')
    .description(`DemoBank rejects a mandate waiting for its approval: the subscription is DISABLED (${SCOPE})`)
    .action(decide('reject'));
  mandates
    .command('revoke <subscription_id>')
    .description(`the payer revokes the mandate at DemoBank: the subscription is DISABLED (${SCOPE})`)
    .action(decide('revoke'));
  return mandates;
}

function chargesCommand(): Command {
  const charges = new Command('charges').description('the debits of charge intents under DemoBank mandates');
  const decide = (decision: ChargeDecision) => async (id: string) => withRuntime(async (ctx) => showPayment(await decideDemoCharge(ctx, id, decision)));
  charges
    .command('settle <payment_id>')
    .description(`DemoBank settles the charge's debit now: the payment is reconciled and notified (${SCOPE})`)
    .action(decide('settle'));
  charges
    .command('fail <payment_id>')
    .description(`DemoBank fails the charge's debit: error_response_url is told, the payment is never done (${SCOPE})`)
    .action(decide('fail'));
  return charges;
}

export function demoBankCommand(): Command {
  const demobank = new Command('demobank').description('the test bank of developer-mode accounts');
  const settle = (decision: DemoBankDecision) => async (id: string) =>
    withRuntime(async (ctx) => {
      const { merchant } = await getPayerPayment(ctx, id);
      showPayment(await settleTransfer(ctx, merchant, id, decision));
    });
  demobank
    .command('confirm <payment_id>')
    .description(`DemoBank confirms the payment's uncertain transfer: the credit is reconciled (${SCOPE})`)
    .action(settle('confirm'));
  demobank
    .command('fail <payment_id>')
    .description(`DemoBank fails the payment's uncertain transfer: the payment is pending again (${SCOPE})`)
    .action(settle('fail'));
  demobank.addCommand(mandatesCommand());
  demobank.addCommand(chargesCommand());
  demobank
    .command('requests')
    .description('what Quipu asked DemoBank (transfers, debits, mandates, questions about them, credit reports) and what it answered, oldest first')
    .option('--payment <id>', 'only the requests about this payment')
    .option('--limit <n>', 'the latest this many', positive, 100)
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const views = (await journaledRequests(ctx.db, { paymentId: options.payment, limit: options.limit })).map(requestView);
        if (options.json) return console.log(JSON.stringify(views));
        printTable(
          [
            { header: '#', value: (v) => v.request_id, right: true },
            { header: 'ASKED AT', value: (v) => v.asked_at },
            { header: 'OPERATION', value: (v) => v.operation },
            {
              header: 'ABOUT',
              value: (v) =>
                v.operation === 'credits' || v.operation === 'mandate-news'
                  ? `after ${v.cursor ?? 'the first'}`
                  : `order ${v.order_id}  payment ${v.payment_id}`,
            },
            { header: 'ANSWER', value: (v) => v.answer },
          ],
          views,
        );
      }),
    );
  return demobank;
}
