// Reconciled payments with their notifications, through the service's own code path: a payment
// created over the v3 API, then reconciled (the reconciliation writes its notification itself).
import type { AppContext } from '../../src/app/context.js';
import { createPayment } from '../../src/app/create-payment.js';
import { reconcilePayment } from '../../src/app/reconcile-payment.js';
import { defaultConcurrencyPerDestination } from '../../src/config.js';
import type { DeliveryWorker, WorkerOptions } from '../../src/delivery/worker.js';
import { deliveryWorker } from '../../src/main/delivery-worker.js';
import type { Merchant } from '../../src/domain/merchant.js';
import type { Payment } from '../../src/domain/payment.js';
import { client } from './http.js';
import { DEMO_CREDIT } from './payments.js';
import type { TestAccount, TestServer } from './test-server.js';

export async function reconciledPayment(server: TestServer, account: TestAccount, fields: Record<string, unknown> = {}): Promise<Payment> {
  const created = await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Order 1', ...fields });
  if (created.status !== 200) throw new Error(`payment not created: ${JSON.stringify(created.body)}`);
  const merchant = account.merchant;
  return reconcilePayment(server.ctx, merchant, created.body.payment_id, { ...DEMO_CREDIT, creditedAt: server.ctx.clock.now() });
}

/** The same, without an HTTP server: for tests that run the service as separate processes. */
export async function reconciledPaymentIn(ctx: AppContext, merchant: Merchant, fields: Record<string, string | number> = {}): Promise<Payment> {
  const created = await createPayment(ctx, merchant, 'v3', { amount: 1000, currency: 'CLP', subject: 'Order 1', ...fields });
  return reconcilePayment(ctx, merchant, created.paymentId, { ...DEMO_CREDIT, creditedAt: ctx.clock.now() });
}

/** A worker with test-sized timings; stop it in afterEach/afterAll. */
export function testWorker(server: TestServer, options: Partial<WorkerOptions> = {}): DeliveryWorker {
  const concurrency = options.concurrency ?? 16;
  const perDestination = options.perDestination ?? defaultConcurrencyPerDestination(concurrency);
  const worker = deliveryWorker(server.ctx, { batchSize: 50, pollMs: 20, leaseMs: 30_000, timeoutMs: 5_000, ...options, concurrency, perDestination });
  worker.start();
  return worker;
}
