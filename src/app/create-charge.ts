// A charge intent: an ordinary payment (the merchant reads and is notified of it like any other)
// and the debit that collects it under the subscription's mandate, written together (charges.ts). A
// background job submits the debit to the mandate's bank (collect-debits.ts).
import type { FieldError } from '../domain/errors.js';
import type { RawValue } from '../domain/field-rules.js';
import { newUuid } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { notifyPolicy } from '../domain/network-address.js';
import type { Payment } from '../domain/payment.js';
import type { PaymentRequest } from '../domain/payment-request.js';
import { parseChargeRequest } from '../domain/subscription-request.js';
import { insertCharge } from '../store/charges.js';
import { toPayment } from '../store/payments.js';
import { findSubscription } from '../store/subscriptions.js';
import type { AppContext } from './context.js';
import { newPaymentRow, withFreshIds } from './create-payment.js';

/** A charge reads as open this long: its debit settles within days, and a failed one expires it at once. */
const CHARGE_OPEN_MS = 30 * 24 * 3_600_000;

export async function createCharge(
  ctx: AppContext,
  merchant: Merchant,
  raw: Readonly<Record<string, RawValue>>,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
): Promise<Payment> {
  const subscriptionId = typeof raw.subscription_id === 'string' ? raw.subscription_id : undefined;
  const subscription = subscriptionId === undefined ? undefined : await findSubscription(ctx.db, merchant.receiverId, subscriptionId);
  const charge = parseChargeRequest(raw, subscription, notifyPolicy(merchant, ctx.config), found, doubts);
  const mandate = subscription!;
  const now = ctx.clock.now();
  const req: PaymentRequest = {
    amount: charge.amount,
    currency: mandate.currency,
    subject: charge.subject,
    body: charge.body,
    custom: charge.custom,
    transactionId: charge.transactionId,
    notifyUrl: charge.notifyUrl,
    notifyApiVersion: charge.notifyApiVersion,
    // Only the mandate's bank pays a charge: a credit from elsewhere is left for an operator.
    bankId: mandate.bankId!,
    payerEmail: mandate.email,
    payerName: mandate.payerName ?? undefined,
    // Not a payer's deadline: a charge is debited, never paid on the payer pages (apply-debit.ts).
    expiresAt: new Date(now.getTime() + CHARGE_OPEN_MS),
    sendEmail: false,
    sendReminders: false,
    collectAccountUuid: merchant.collectAccounts[0]!,
  };
  return withFreshIds(async () => {
    const row = newPaymentRow(ctx, merchant, req, now);
    await insertCharge(ctx.db, {
      payment: row,
      debit: {
        debit_id: newUuid(ctx.random),
        payment_id: row.payment_id,
        receiver_id: merchant.receiverId,
        subscription_id: mandate.subscriptionId,
        bank_id: mandate.bankId!,
        amount: charge.amount,
        currency: mandate.currency,
        error_response_url: charge.errorResponseUrl,
        state: 'due',
        failure: null,
        next_check_at: now.getTime(),
        submitted_at: null,
        settled_at: null,
        created_at: now.getTime(),
        updated_at: now.getTime(),
      },
    });
    return toPayment(row);
  });
}
