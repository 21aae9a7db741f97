// Creates a payment from a v3 or v2 request. Usually a single insert (through group commit):
// nothing else is written, so nothing can be left half-done. A payment emailed to its payer
// (send_email) commits in one transaction with its collection email, or neither is written.
import type { Kysely } from 'kysely';
import { findBank } from '../domain/banks.js';
import { DomainError, type FieldError } from '../domain/errors.js';
import { COLLECTION_EMAIL_LIMITS, emailLimitBreached } from '../domain/email-limits.js';
import { newNotificationToken, newPaymentId } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { notifyPolicy } from '../domain/network-address.js';
import type { Payment } from '../domain/payment.js';
import { paymentEmail } from '../render/payment-emails.js';
import { type ApiSurface, parsePaymentRequest, type PaymentRequest, type PaymentRequestContext } from '../domain/payment-request.js';
import { nextReminderAt } from '../domain/reminder-schedule.js';
import type { RawValue } from '../domain/field-rules.js';
import { insertPayment, toPayment } from '../store/payments.js';
import { countRecentMessages } from '../store/messages.js';
import type { DB, PaymentRow } from '../store/schema.js';
import { inTransaction, isUniqueViolation } from '../store/transaction.js';
import type { AppContext } from './context.js';

/**
 * `found`: field errors the transport's schema already found, reported with the rules' own. Values
 * accepted that are likely mistakes are added to `doubts`, for developers to hear of.
 */
export async function createPayment(
  ctx: AppContext,
  merchant: Merchant,
  surface: ApiSurface,
  raw: Readonly<Record<string, RawValue>>,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
): Promise<Payment> {
  const context = paymentRequestContext(ctx, merchant);
  const { now } = context;
  const req = parsePaymentRequest(surface, raw, context, found, doubts);
  return withFreshIds(async () => {
    const row = newPaymentRow(ctx, merchant, req, now);
    const payment = toPayment(row);
    const email = req.sendEmail ? paymentEmail('payment.email.collection', payment, merchant, ctx.config) : undefined;
    if (email) {
      await inTransaction(ctx.db, async (trx) => {
        if (ctx.config.smtpUrl !== undefined) await withinEmailLimits(trx, merchant, email.url, now.getTime());
        await insertPayment(trx, row);
        await ctx.outbox.write(trx, email);
      });
    } else {
      await insertPayment(ctx.db, row);
    }
    return payment;
  });
}

/** What the rules of a payment request read of the account and the installation, now on the context's clock. */
export function paymentRequestContext(ctx: AppContext, merchant: Merchant): PaymentRequestContext {
  return { merchant, notifyPolicy: notifyPolicy(merchant, ctx.config), now: ctx.clock.now(), defaultTtlHours: ctx.config.paymentDefaultTtlHours };
}

/**
 * Refuses a collection email past the account's or the recipient's limit (domain/email-limits.ts).
 * Counted inside the transaction that writes it: on SQLite it holds the write lock; on PostgreSQL
 * creates running at once may each pass the count, by as many as run at once.
 */
async function withinEmailLimits(db: Kysely<DB>, merchant: Merchant, url: string, now: number): Promise<void> {
  const { perAccount, perRecipient } = COLLECTION_EMAIL_LIMITS;
  const [account, recipient] = await Promise.all([
    countRecentMessages(db, merchant.receiverId, 'payment.email.collection', now - perAccount.windowMs, url),
    countRecentMessages(db, merchant.receiverId, 'payment.email.collection', now - perRecipient.windowMs, url),
  ]);
  const breached = emailLimitBreached({ account: account.all, recipient: recipient.toUrl });
  if (breached) {
    const which =
      breached === 'account' ? `${perAccount.count} collection emails an hour for an account` : `${perRecipient.count} collection emails a day to one address`;
    throw new DomainError('rate_limited', `payer_email: at most ${which}; try again later or send the payment_url yourself`);
  }
}

/** Runs `write` again, with new ids, should they collide with existing ones. */
export async function withFreshIds<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      // 36^12 ids and 2^256 tokens: a collision is astronomically rare, but never a 500.
      if (isUniqueViolation(error) && attempt < 5) continue;
      throw error;
    }
  }
}

/** A new payment's row, with fresh ids: a charge intent's payment is built the same way (create-charge.ts). */
export function newPaymentRow(ctx: AppContext, merchant: Merchant, req: PaymentRequest, now: Date): PaymentRow {
  const at = now.getTime();
  return {
    payment_id: newPaymentId(ctx.random),
    receiver_id: merchant.receiverId,
    notification_token: newNotificationToken(ctx.random, at),
    status: 'pending',
    status_detail: 'pending',
    version: 1,
    subject: req.subject,
    body: req.body ?? null,
    amount: req.amount,
    currency: req.currency,
    discount: 0,
    refunded: 0,
    transaction_id: req.transactionId ?? null,
    custom: req.custom ?? null,
    bank_id: req.bankId ?? null,
    bank_name: req.bankId ? (findBank(req.bankId, merchant.developer)?.name ?? null) : null,
    return_url: req.returnUrl ?? null,
    cancel_url: req.cancelUrl ?? null,
    picture_url: req.pictureUrl ?? null,
    notify_url: req.notifyUrl ?? null,
    notify_api_version: req.notifyApiVersion ?? null,
    contract_url: req.contractUrl ?? null,
    expires_at: req.expiresAt.getTime(),
    send_email: req.sendEmail ? 1 : 0,
    send_reminders: req.sendReminders ? 1 : 0,
    payer_name: req.payerName ?? null,
    payer_email: req.payerEmail ?? null,
    responsible_user_email: req.responsibleUserEmail ?? null,
    fixed_payer_personal_identifier: req.fixedPayerPersonalIdentifier ?? null,
    integrator_fee: req.integratorFee ?? null,
    collect_account_uuid: req.collectAccountUuid,
    confirm_timeout_at: req.confirmTimeoutAt?.getTime() ?? null,
    mandatory_payment_method: req.mandatoryPaymentMethod ?? null,
    psp_client_merchant_name: req.pspClientMerchantName ?? null,
    personal_identifier: null,
    bank_account_number: null,
    payment_method: null,
    funds_source: null,
    receipt_url: null,
    out_of_date_conciliation: 0,
    conciliation_at: null,
    confirmed_at: null,
    funds_delivery_at: null,
    next_reminder_at: nextReminderAt({ sendReminders: req.sendReminders, createdAt: now, expiresAt: req.expiresAt }, now)?.getTime() ?? null,
    fund_delivery_id: null,
    created_at: at,
    updated_at: at,
    deleted_at: null,
  };
}
