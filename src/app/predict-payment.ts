// Predicts whether a payer's transfer to this account would go through.
import type { FieldError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { predict, type Prediction } from '../domain/predict.js';
import { parsePredictQuery, type PredictQuery } from '../domain/predict-request.js';
import { firstPaymentByPayer } from '../store/payments.js';
import type { AppContext } from './context.js';

/** Values answered or read with a doubt are added to `doubts`, for developers to hear of. */
export async function predictPayment(ctx: AppContext, merchant: Merchant, query: PredictQuery, doubts: FieldError[] = []): Promise<Prediction> {
  const request = parsePredictQuery(query, merchant.developer, doubts);
  const firstPaidAt = await firstPaymentByPayer(ctx.db, merchant.receiverId, request.payerEmail);
  return predict(request.bank, request.amount, request.currency, { firstPaidAt }, ctx.clock.now());
}
