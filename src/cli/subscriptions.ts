// `quipu subscriptions list|show`: the automatic payment API's subscriptions for operators and
// developers: each one's state (the wire status and Quipu's own), its mandate's history with who
// caused each change and why, and its charges.
import { Command } from 'commander';
import type { AppContext } from '../app/context.js';
import { getSubscriptionDetail } from '../app/subscription-queries.js';
import type { Debit } from '../domain/debit.js';
import { notFound } from '../domain/errors.js';
import { wireStatus } from '../domain/mandate-status.js';
import { amountToNumber } from '../domain/money.js';
import { NO_BANK, type Subscription } from '../domain/subscription.js';
import { findSubscriptionById, listSubscriptions, type MandateChange } from '../store/subscriptions.js';
import { chosenAccount, withAccountChoice } from './account-choice.js';
import { printHuman } from './merchant-view.js';
import { wholeNumber } from './options.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

const iso = (date: Date | null) => date?.toISOString() ?? null;

const subscriptionView = (s: Subscription) => ({
  subscription_id: s.subscriptionId,
  receiver_id: s.receiverId,
  status: wireStatus(s.state),
  state: s.state,
  developer: s.developer,
  name: s.name,
  email: s.email,
  max_amount: amountToNumber(s.maxAmount),
  currency: s.currency,
  service_reference: s.serviceReference,
  customer_bank_code: s.bankId ?? NO_BANK,
  payer_identifier: s.payerIdentifier,
  notify_url: s.notifyUrl,
  created_at: iso(s.createdAt),
  updated_at: iso(s.updatedAt),
});

const changeView = (c: MandateChange) => ({ changed_at: iso(c.changedAt), event: c.event, from: c.from, to: c.to, origin: c.origin, reason: c.reason });

const chargeView = (d: Debit) => ({
  payment_id: d.paymentId,
  amount: amountToNumber(d.amount),
  currency: d.currency,
  debit_state: d.state,
  failure: d.failure,
  created_at: iso(d.createdAt),
  submitted_at: iso(d.submittedAt),
  settled_at: iso(d.settledAt),
});

async function detail(ctx: AppContext, id: string) {
  const found = await findSubscriptionById(ctx.db, id);
  if (!found) throw notFound('Subscription');
  const { subscription, history, charges } = await getSubscriptionDetail(ctx, found, id);
  return { ...subscriptionView(subscription), history: history.map(changeView), charges: charges.map(chargeView) };
}

export function subscriptionsCommand(): Command {
  const subscriptions = new Command('subscriptions').description('subscriptions of the automatic payment API and their mandates');

  withAccountChoice(subscriptions.command('list').description("list an account's subscriptions, newest first"))
    .option('--limit <n>', 'at most this many', wholeNumber, 100)
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const { receiverId } = await chosenAccount(ctx, options);
        const views = (await listSubscriptions(ctx.db, { receiverId, limit: options.limit })).map(subscriptionView);
        if (options.json) return console.log(JSON.stringify(views));
        printTable(
          [
            { header: 'ID', value: (v) => v.subscription_id },
            { header: 'STATUS', value: (v) => v.status },
            { header: 'STATE', value: (v) => v.state },
            { header: 'RECEIVER', value: (v) => v.receiver_id },
            { header: 'BANK', value: (v) => v.customer_bank_code },
            { header: 'NAME', value: (v) => v.name },
          ],
          views,
        );
      }),
    );

  subscriptions
    .command('show <subscription_id>')
    .description("show one subscription: its state, its mandate's history (origin and reason of each change) and its charges")
    .option('--json', 'print JSON')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const view = await detail(ctx, id);
        if (options.json) return console.log(JSON.stringify(view));
        const { history, charges, ...rest } = view;
        printHuman(rest);
        console.log('\nhistory');
        printTable(
          [
            { header: 'CHANGED', value: (c) => c.changed_at },
            { header: 'CHANGE', value: (c) => `${c.from} → ${c.to}` },
            { header: 'EVENT', value: (c) => c.event },
            { header: 'BY', value: (c) => c.origin },
            { header: 'REASON', value: (c) => c.reason },
          ],
          history,
        );
        console.log('\ncharges');
        printTable(
          [
            { header: 'PAYMENT', value: (c) => c.payment_id },
            { header: 'AMOUNT', value: (c) => `${c.amount} ${c.currency}`, right: true },
            { header: 'DEBIT', value: (c) => c.debit_state },
            { header: 'FAILURE', value: (c) => c.failure },
          ],
          charges,
        );
      }),
    );
  return subscriptions;
}
