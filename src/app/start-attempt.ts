// The payer starts an attempt to pay by simplified transfer: a bank that can pay this payment and
// an email for the receipt, which is sent in the language of the pages the attempt starts from.
// The attempt lasts 3 hours (or until the payment expires).
import { findBank } from '../domain/banks.js';
import { DomainError, FieldErrors, stateError } from '../domain/errors.js';
import { isEmail } from '../domain/formats.js';
import { newUuid } from '../domain/ids.js';
import { allowsMethod, bankRefusal } from '../domain/payer-options.js';
import { attemptDeadline, payerBlock, type PaymentAttempt } from '../domain/payment-attempt.js';
import type { Lang } from '../render/words.js';
import { insertAttempt, toAttempt } from '../store/attempts.js';
import type { AppContext } from './context.js';
import { getPayerPayment, refuseDirectDebit } from './payer-payment.js';

export interface AttemptRequest {
  bankId?: string;
  payerEmail?: string;
  /** The payer pages' language; absent without the pages (`quipu payments pay`). */
  lang?: Lang;
}

export async function startAttempt(ctx: AppContext, paymentId: string, request: AttemptRequest): Promise<PaymentAttempt> {
  const view = await getPayerPayment(ctx, paymentId);
  const { payment, merchant } = view;
  const now = ctx.clock.now();
  const block = payerBlock(payment, now);
  if (block) throw stateError(`The payment cannot be paid: ${block}`);
  refuseDirectDebit(view);
  if (!allowsMethod(payment, merchant, 'SIMPLIFIED_TRANSFER')) throw stateError('This payment cannot be paid by simplified transfer');
  const errors = new FieldErrors();
  const bank = request.bankId ? findBank(request.bankId, merchant.developer) : undefined;
  if (!bank || (payment.bankId !== null && bank.bankId !== payment.bankId) || bankRefusal(bank, payment))
    errors.add('bank_id', 'is not a bank that can pay this payment');
  if (!request.payerEmail || !isEmail(request.payerEmail) || request.payerEmail.length > 255) errors.add('payer_email', 'must be an email address');
  errors.throwIfAny();
  if (!ctx.banks.connectorFor(bank!.bankId)) throw new DomainError('forbidden', `Quipu has no connection to ${bank!.name} yet`);
  const startedAt = now.getTime();
  const row = {
    attempt_id: newUuid(ctx.random),
    payment_id: payment.paymentId,
    receiver_id: payment.receiverId,
    bank_id: bank!.bankId,
    payer_email: request.payerEmail!,
    personal_identifier: null,
    account_number: null,
    payer_name: null,
    state: 'started',
    failure: null,
    started_at: startedAt,
    expires_at: attemptDeadline(now, payment.expiresAt).getTime(),
    updated_at: startedAt,
    payer_lang: request.lang ?? null,
  };
  await insertAttempt(ctx.db, row);
  return toAttempt(row);
}
