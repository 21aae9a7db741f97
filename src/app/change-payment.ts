// The one place a stored payment changes. A use case decides what to change from the current
// payment (under a row lock), status moves go through the transition table, and the change, its
// version bump, its extra writes (refund rows) and the messages it sends or withdraws
// (domain/payment-messages.ts) commit together. One payment at a time (changePayment), or many
// that one transaction locked together (HeldPayments), with the same rules.
import type { Kysely } from 'kysely';
import { notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { PAYER_EMAIL_KINDS } from '../domain/message-kinds.js';
import { PAYMENT_EVENT_MESSAGES, type PayerEmailChange, payerEmailChange, sendsConfirmation } from '../domain/payment-messages.js';
import { applyEvent, type PaymentEvent } from '../domain/payment-status.js';
import { confirmationEmail } from '../render/payment-emails.js';
import { isLang } from '../render/words.js';
import { payerLanguages } from '../store/attempts.js';
import { withdrawMessages } from '../store/messages.js';
import type { DB, PaymentRow, PaymentUpdate } from '../store/schema.js';
import { findPayment, toPayment, updatePayment, updatePaymentRows } from '../store/payments.js';
import { inTransaction } from '../store/transaction.js';
import { type AppContext, withDb } from './context.js';
import { merchantOf } from './merchant-of.js';

export interface PaymentChange {
  /** A status move, looked up in the transition table. */
  event?: PaymentEvent;
  /** Other columns to set. */
  fields?: Omit<PaymentUpdate, 'status' | 'status_detail' | 'version' | 'updated_at'>;
  /** Writes that belong to the same change, run after the payment row is updated. */
  also?: (trx: Kysely<DB>, changed: Payment) => Promise<void>;
  /** The account, when the use case has it at hand; otherwise it is read when a message needs it. */
  merchant?: Merchant;
}

type Decide = (payment: Payment, now: Date) => PaymentChange;

interface Planned {
  change: PaymentChange;
  update: PaymentUpdate;
  emails: PayerEmailChange | undefined;
}

/** What the change writes to the row, the transition table deciding the status. */
function plan(payment: Payment, decide: Decide, now: Date): Planned {
  const change = decide(payment, now);
  const next = change.event ? applyEvent(payment, change.event) : payment;
  const emails = payerEmailChange(payment, next, change.fields?.deleted_at != null, now);
  const update: PaymentUpdate = {
    ...change.fields,
    ...(emails && { next_reminder_at: emails.nextReminderAt?.getTime() ?? null }),
    status: next.status,
    status_detail: next.statusDetail,
    updated_at: now.getTime(),
  };
  return { change, update, emails };
}

type Followed = { planned: Planned; changed: Payment };

/** The languages the payers of the changes that send a confirmation paid in (their attempts'), in one query. */
function confirmationLanguages(trx: Kysely<DB>, followed: readonly Followed[]): Promise<Map<string, string>> {
  const confirmed = followed.filter(({ planned, changed }) => sendsConfirmation(planned.change.event, changed)).map(({ changed }) => changed.paymentId);
  return payerLanguages(trx, confirmed);
}

/** The writes that follow a payment's row: the change's own, and the messages it sends. */
async function follow(ctx: AppContext, trx: Kysely<DB>, { planned: { change }, changed }: Followed, languages: ReadonlyMap<string, string>): Promise<void> {
  if (change.also) await change.also(trx, changed);
  let merchant = change.merchant;
  const merchantNow = async () => (merchant ??= await merchantOf(withDb(ctx, trx), changed.receiverId));
  const messages = change.event && PAYMENT_EVENT_MESSAGES[change.event];
  const draft = messages && messages(changed, await merchantNow());
  if (draft) await ctx.outbox.write(trx, draft);
  if (sendsConfirmation(change.event, changed)) {
    const lang = languages.get(changed.paymentId);
    await ctx.outbox.write(trx, await confirmationEmail(changed, await merchantNow(), isLang(lang) ? lang : 'es', ctx.config));
  }
}

export async function changePayment(ctx: AppContext, receiverId: number, paymentId: string, decide: Decide): Promise<Payment> {
  return inTransaction(ctx.db, async (trx) => {
    const payment = await findPayment(trx, receiverId, paymentId, { lock: true });
    if (!payment) throw notFound('Payment');
    const now = ctx.clocks.of(receiverId).now();
    const planned = plan(payment, decide, now);
    // The row is locked, so the version always matches; the check guards against a caller that forgot the lock.
    const changed = await updatePayment(trx, paymentId, payment.version, planned.update);
    if (!changed) throw new Error(`payment ${paymentId} changed during its own transaction`);
    if (planned.emails?.withdraw) await withdrawMessages(trx, [paymentId], PAYER_EMAIL_KINDS, now.getTime());
    const followed = { planned, changed };
    await follow(ctx, trx, followed, await confirmationLanguages(trx, [followed]));
    return changed;
  });
}

/**
 * Payments the transaction `ctx.db` locked together (lockPaymentRows), changed one after another as
 * changePayment would, each change seeing the ones before, and written together by `write()`: the
 * rows in one statement (updatePaymentRows), the withdrawn emails in another, then each change's
 * own writes and messages. A statement of bank credits costs a few round trips, not one per payment.
 */
export class HeldPayments {
  readonly #ctx: AppContext;
  readonly #rows: Map<string, PaymentRow>;
  /** The version each changed payment had when locked; it is written once, one version on. */
  readonly #lockedVersions = new Map<string, number>();
  readonly #touched = new Set<keyof PaymentUpdate>();
  readonly #withdrawn: string[] = [];
  readonly #followed: Followed[] = [];

  constructor(ctx: AppContext, rows: Map<string, PaymentRow>) {
    if (!ctx.db.isTransaction) throw new Error('held payments are changed in the transaction that locked them');
    this.#ctx = ctx;
    this.#rows = rows;
  }

  /** The payment as the changes so far left it. */
  get(paymentId: string): Payment | undefined {
    const row = this.#rows.get(paymentId);
    return row && toPayment(row);
  }

  change(receiverId: number, paymentId: string, decide: Decide): Payment {
    const row = this.#rows.get(paymentId);
    if (!row || row.receiver_id !== receiverId) throw notFound('Payment');
    const now = this.#ctx.clocks.of(receiverId).now();
    const planned = plan(toPayment(row), decide, now);
    if (!this.#lockedVersions.has(paymentId)) this.#lockedVersions.set(paymentId, row.version);
    const next: PaymentRow = { ...row, ...(planned.update as Partial<PaymentRow>), version: this.#lockedVersions.get(paymentId)! + 1 };
    this.#rows.set(paymentId, next);
    for (const column of Object.keys(planned.update) as (keyof PaymentUpdate)[]) this.#touched.add(column);
    if (planned.emails?.withdraw) this.#withdrawn.push(paymentId);
    const changed = toPayment(next);
    this.#followed.push({ planned, changed });
    return changed;
  }

  async write(): Promise<void> {
    const trx = this.#ctx.db;
    const rows = [...this.#lockedVersions.keys()].map((paymentId) => this.#rows.get(paymentId)!);
    const written = await updatePaymentRows(trx, rows, [...this.#touched, 'version']);
    if (written !== rows.length) throw new Error(`${rows.length - written} of ${rows.length} held payments changed during their own transaction`);
    if (this.#withdrawn.length > 0) await withdrawMessages(trx, this.#withdrawn, PAYER_EMAIL_KINDS, this.#ctx.clock.now().getTime());
    const languages = await confirmationLanguages(trx, this.#followed);
    for (const followed of this.#followed) await follow(this.#ctx, trx, followed, languages);
  }
}
