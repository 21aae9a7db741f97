// Refunds all or part of a paid payment before its funds are delivered. The payment row is locked
// while the refund is planned, so concurrent refunds can never add up to more than was paid.
import { findCurrency } from '../domain/currency.js';
import { DomainError, fieldError } from '../domain/errors.js';
import type { RawValue } from '../domain/field-rules.js';
import { newUuid } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { numberToDecimalText, parseAmount } from '../domain/money.js';
import { planRefund } from '../domain/refund.js';
import { insertRefund } from '../store/payments.js';
import type { AppContext } from './context.js';
import { changePayment } from './change-payment.js';

export interface RefundResult {
  amount: number;
  currency: string;
  full: boolean;
}

export async function refundPayment(ctx: AppContext, merchant: Merchant, paymentId: string, rawAmount: RawValue): Promise<RefundResult> {
  let result: RefundResult | undefined;
  await changePayment(ctx, merchant.receiverId, paymentId, (payment, now) => {
    const requested = rawAmount === undefined ? undefined : parseRefundAmount(rawAmount, payment.currency);
    const plan = planRefund(payment, requested, merchant.features.refunds, now);
    if (plan instanceof DomainError) throw plan;
    result = { amount: plan.amount, currency: payment.currency, full: plan.full };
    return {
      event: plan.full ? 'refunded-in-full' : undefined,
      fields: { refunded: payment.refunded + plan.amount },
      also: (trx) => insertRefund(trx, { refundId: newUuid(ctx.random), paymentId, receiverId: merchant.receiverId, amount: plan.amount, at: now }),
    };
  });
  return result!;
}

/** Only a missing amount refunds everything: a null one is refused, since a refund cannot be undone. */
export function parseRefundAmount(raw: Exclude<RawValue, undefined>, currency: string): number {
  const text = typeof raw === 'number' ? numberToDecimalText(raw) : typeof raw === 'string' ? raw : undefined;
  if (text === undefined) throw fieldError('amount', 'must be a number');
  const parsed = parseAmount(text, findCurrency(currency)?.decimals ?? 4);
  if (!parsed.ok) throw fieldError('amount', parsed.reason);
  return parsed.units;
}
