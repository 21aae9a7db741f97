// Predicts whether a payer's transfer to this account would go through.
import { findBank } from '../domain/banks.js';
import { findCurrency, V3_CURRENCIES } from '../domain/currency.js';
import { FieldErrors } from '../domain/errors.js';
import { isEmail } from '../domain/formats.js';
import type { Merchant } from '../domain/merchant.js';
import { parseAmount } from '../domain/money.js';
import { predict, type Prediction } from '../domain/predict.js';
import { firstPaymentByPayer } from '../store/payments.js';
import type { AppContext } from './context.js';

export interface PredictQuery {
  payer_email: string;
  bank_id: string;
  amount: string;
  currency: string;
}

export async function predictPayment(ctx: AppContext, merchant: Merchant, query: PredictQuery): Promise<Prediction> {
  const errors = new FieldErrors();
  if (!isEmail(query.payer_email)) errors.add('payer_email', 'must be an email address');
  const bank = findBank(query.bank_id, merchant.developer);
  if (!bank) errors.add('bank_id', 'is not a bank available to this account');
  const currency = findCurrency(query.currency);
  if (!currency) errors.add('currency', `must be one of ${V3_CURRENCIES.join(', ')}`);
  let amount = 0;
  if (currency) {
    const parsed = parseAmount(query.amount, currency.decimals);
    if (!parsed.ok) errors.add('amount', parsed.reason);
    else if (parsed.units === 0) errors.add('amount', 'must be greater than zero');
    else amount = parsed.units;
  }
  errors.throwIfAny();
  const firstPaidAt = await firstPaymentByPayer(ctx.db, merchant.receiverId, query.payer_email);
  return predict(bank!, amount, currency!.code, { firstPaidAt }, ctx.clock.now());
}
