// A full example of a merchant's day with Quipu, over HTTP against a server at `url`: a payment
// created, paid at DemoBank (`pay`: `quipu payments pay`, run however that server's commands run),
// notified and partly refunded; a subscription whose mandate DemoBank signs (the mandate-enabled
// scenario); a charge intent debited and settled on the account's clock, and notified. Both offline
// proofs run it: the npm package's (offline-example.ts) and the image's (container-example.ts).
import { moveClockPastSettlement } from '../../bench/charge-pipeline.js';
import { chargeBodies } from '../../bench/charge-server.js';
import { eventually, type Receiver, signedBy } from './notification-receiver.js';

export interface MerchantDay {
  payment: string;
  refunded: boolean;
  subscription: string;
  charge: string;
  notifications: number;
  /** When the payment's notification arrived (epoch ms), and whether it was signed with the account's secret. */
  firstNotificationAt: number;
  signed: boolean;
}

export async function merchantDay(
  url: string,
  account: { apiKey: string; secret: string },
  receiver: Receiver,
  pay: (paymentId: string) => Promise<unknown>,
): Promise<MerchantDay> {
  const headers = { 'content-type': 'application/json', 'x-api-key': account.apiKey };
  const api = async (method: string, route: string, body?: object) => {
    const answer = await fetch(`${url}${route}`, { method, headers, body: body && JSON.stringify(body) });
    const text = await answer.text();
    if (answer.status !== 200) throw new Error(`${method} ${route} answered ${answer.status}: ${text}`);
    return JSON.parse(text);
  };
  const notificationOf = (field: string, id: string) => receiver.requests.find((request) => request.body.includes(`"${field}":"${id}"`));

  const payment = await api('POST', '/v3/payments', { amount: 2000, currency: 'CLP', subject: 'Offline', notify_url: receiver.url, notify_api_version: '3.0' });
  await pay(payment.payment_id);
  await receiver.waitFor(() => notificationOf('payment_id', payment.payment_id) !== undefined, 60_000);
  const firstNotificationAt = Date.now();
  const notified = notificationOf('payment_id', payment.payment_id)!;
  const refund = await api('POST', `/v3/payments/${payment.payment_id}/refunds`, { amount: 500 });

  const scenario = await api('POST', '/sandbox/scenarios/mandate-enabled/run');
  const subscriptionId = scenario.subscription.subscription_id as string;
  const { charge } = chargeBodies(subscriptionId, receiver.url);
  const intent = await api('POST', '/v1/automatic-payment/charge-intent', charge);
  // The debit job is due every 5 s of the account's clock: moved that far, it runs for the account at once.
  await api('POST', '/sandbox/clock', { advance: '5s' });
  // Once the job has submitted the debit (it runs in the background), it settles on the next bank
  // business day: the clock is moved past it until the charge is notified.
  await eventually(
    async () => {
      await moveClockPastSettlement(url, headers);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return notificationOf('payment_id', intent.payment_id);
    },
    Boolean,
    60_000,
  );

  const paid = await api('GET', `/v3/payments/${payment.payment_id}`);
  const charged = await api('GET', `/v3/payments/${intent.payment_id}`);
  return {
    payment: paid.status,
    refunded: refund.message !== undefined,
    subscription: scenario.outcome,
    charge: charged.status,
    notifications: receiver.requests.length,
    firstNotificationAt,
    signed: signedBy(account.secret, notified),
  };
}
