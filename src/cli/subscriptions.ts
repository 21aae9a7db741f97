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
import { printHuman } from './merchant-view.js';
import { wholeNumber } from './options.js';
import { withRuntime } from './runtime.js';

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

  subscriptions
    .command('list')
    .description('list subscriptions, newest first')
    .option('--receiver <id>', 'only this account', wholeNumber)
    .option('--limit <n>', 'at most this many', wholeNumber, 100)
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const views = (await listSubscriptions(ctx.db, { receiverId: options.receiver, limit: options.limit })).map(subscriptionView);
        if (options.json) return console.log(JSON.stringify(views));
        for (const v of views)
          console.log(`${v.subscription_id}  ${v.status.padEnd(8)} ${v.state.padEnd(16)} ${v.receiver_id}  ${v.customer_bank_code.padEnd(7)} ${v.name}`);
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
        console.log('history');
        for (const c of history) console.log(`  ${c.changed_at}  ${c.from} → ${c.to}  (${c.event}, by ${c.origin})  ${c.reason}`);
        console.log('charges');
        for (const c of charges) console.log(`  ${c.payment_id}  ${c.amount} ${c.currency}  ${c.debit_state}${c.failure ? `  ${c.failure}` : ''}`);
      }),
    );
  return subscriptions;
}
