// An account whose dashboard has something on every page, made through the same use cases as the
// API and the pages: payments pending, paid at DemoBank, refunded in part and in full; a payment
// notification delivered to a local receiver (its event has an attempt) and collection emails (the
// inbox); a subscription in force (mandate-enabled); a dashboard user. The browser tests and
// scripts/dashboard-screenshot.ts use it.
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import { createPayment } from '../../src/app/create-payment.js';
import { payWithDemoBank } from '../../src/app/pay-with-demobank.js';
import { refundPayment } from '../../src/app/refund-payment.js';
import { runScenario } from '../../src/app/run-scenario.js';
import { testWorker } from './delivery.js';
import { eventually, startReceiver } from './notification-receiver.js';
import { CHOSEN_PASSWORD, type TestAccount, type TestServer } from './test-server.js';

export interface SeededDashboard {
  account: TestAccount;
  user: DashboardCredentials;
  /** Paid at DemoBank, its 3.0 notification delivered. */
  paid: string;
  pending: string;
  partlyRefunded: string;
  refunded: string;
  /** The paid payment's notification, delivered once. */
  notification: string;
  /** A collection email of the pending payment. */
  email: string;
  subscription: string;
}

/** What the seeded account is opened with: refunds and confirmation contracted, so the payment pages offer them. */
export const SEEDED_ACCOUNT = { name: 'Teapots & Co', features: { refunds: true, confirm: true } };

/** Seeds `account` (one opened with SEEDED_ACCOUNT), or a new one. */
export async function seedDashboard(server: TestServer, given?: TestAccount): Promise<SeededDashboard> {
  const account = given ?? (await server.account(SEEDED_ACCOUNT));
  const user = await addDashboardUser(server.ctx, account.receiver_id, { email: 'owner@teapots.example', password: CHOSEN_PASSWORD });
  const hooks = await startReceiver();
  const worker = testWorker(server);
  try {
    const create = (fields: Record<string, string | number | boolean>) =>
      createPayment(server.ctx, account.merchant, 'v3', { currency: 'CLP', ...fields }).then((p) => p.paymentId);
    const paid = await create({ amount: 48000, subject: 'Green teapot', notify_url: hooks.url, payer_email: 'ana@example.com', payer_name: 'Ana Pérez' });
    await payWithDemoBank(server.ctx, paid, 'pay');
    const pending = await create({ amount: 12500, subject: 'Black kettle', payer_email: 'bruno@example.com', payer_name: 'Bruno Soto', send_email: true });
    const partlyRefunded = await create({ amount: 30000, subject: 'Tea sampler' });
    await payWithDemoBank(server.ctx, partlyRefunded, 'pay');
    await refundPayment(server.ctx, account.merchant, partlyRefunded, '10000');
    const refunded = await create({ amount: 9900, subject: 'Porcelain cups' });
    await payWithDemoBank(server.ctx, refunded, 'pay');
    await refundPayment(server.ctx, account.merchant, refunded, undefined);
    const run = await runScenario(server.ctx, account.merchant, 'mandate-enabled');
    const messages = () =>
      server.ctx.db.selectFrom('messages').select(['message_id', 'subject_id', 'kind', 'status']).where('receiver_id', '=', account.receiver_id).execute();
    const sent = await eventually(messages, (rows) =>
      rows.some((m) => m.subject_id === paid && m.kind === 'payment.notification.3.0' && m.status === 'delivered'),
    );
    return {
      account,
      user,
      paid,
      pending,
      partlyRefunded,
      refunded,
      notification: sent.find((m) => m.subject_id === paid && m.kind === 'payment.notification.3.0')!.message_id,
      email: sent.find((m) => m.subject_id === pending && m.kind === 'payment.email.collection')!.message_id,
      subscription: run.subscription!.subscriptionId,
    };
  } finally {
    await worker.stop();
    await hooks.close();
  }
}
