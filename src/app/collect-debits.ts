// The background job of charge intents (jobs/jobs.ts): submits the due debits to their mandates'
// banks and asks those banks what became of the debits they hold (on the settlement date they
// gave, or again a minute after a question went unanswered). A debit reaches its bank at most
// once: it is claimed `submitting` in a commit of its own, made durable before the bank hears of
// it (ask-bank.ts); one whose process stopped in between, or whose answer never came, is asked
// about, and submitted again only if its bank says it never received it.
//
// Debits go to a bank in batches, as a collection file would, and their answers are applied a
// batch to a transaction: on PostgreSQL every statement is a round trip, and a debit handled alone
// cost some twenty of them. A few batches are with the banks at once.
import type { DebitOrder, DebitResult, MandateBank } from '../bank/connector.js';
import { abandonedAfterMs } from '../domain/abandoned-question.js';
import type { Debit, DebitState } from '../domain/debit.js';
import type { ScanTime } from '../domain/scan-time.js';
import { debitsDue, staleSubmissions } from '../store/debits.js';
import { inChunks } from '../store/group-commit.js';
import { findPaymentsByIds } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import { applyDebitResults } from './apply-debit.js';
import { askBank, askBankToMoveMoney, NO_ANSWER_IN_TIME } from './ask-bank.js';
import { changeDebits } from './change-debit.js';
import { type AppContext, forAccount, withDb } from './context.js';

/** Debits in one call to a bank, and in the transaction that applies its answers. */
const BATCH = 200;
/** Batches a run has with the banks at once. */
const LANES = 4;

function mandateBankOf(ctx: AppContext, bankId: string): MandateBank {
  const bank = ctx.banks.mandatesAt(bankId);
  if (!bank) throw new Error(`bank ${bankId} takes no debits`);
  return bank;
}

async function ordersOf(ctx: AppContext, debits: readonly Debit[]): Promise<DebitOrder[]> {
  const payments = await findPaymentsByIds(
    ctx.db,
    debits.map((debit) => debit.paymentId),
  );
  return debits.map((debit) => ({
    orderId: debit.debitId,
    mandateId: debit.subscriptionId,
    reference: debit.paymentId,
    // A charge's payment is never deleted once submitted (delete-payment.ts); the account is its.
    account: payments.get(debit.paymentId)?.collectAccountUuid ?? ctx.config.collectionAccount.number,
    destination: ctx.config.collectionAccount,
    amount: debit.amount,
    currency: debit.currency,
  }));
}

/** A bank is called about one account's debits at a time (its clock dates the call) and one bank's. */
function byAccountAndBank(debits: readonly Debit[]): Debit[][] {
  const groups = new Map<string, Debit[]>();
  for (const debit of debits) {
    const key = `${debit.receiverId} ${debit.bankId}`;
    const group = groups.get(key);
    if (group) group.push(debit);
    else groups.set(key, [debit]);
  }
  return [...groups.values()];
}

/** Submits debits claimed together and applies the answers; one call per account and bank. */
async function submitClaimed(ctx: AppContext, claimed: readonly Debit[]): Promise<void> {
  for (const debits of byAccountAndBank(claimed)) {
    const own = forAccount(ctx, debits[0]!.receiverId);
    const bank = mandateBankOf(own, debits[0]!.bankId);
    const orders = await ordersOf(own, debits);
    const answer = await askBankToMoveMoney(own, { orderIds: orders.map((o) => o.orderId), bankId: debits[0]!.bankId }, (call) =>
      bank.submitDebits(orders, call),
    );
    await applyAnswers(own, debits, 'submitting', answer);
  }
}

/** Applies a bank's answers (or its silence, for every debit of the call). */
async function applyAnswers(
  ctx: AppContext,
  debits: readonly Debit[],
  from: DebitState,
  answer: readonly DebitResult[] | { status: 'uncertain' },
): Promise<void> {
  if (Array.isArray(answer) && answer.length !== debits.length) throw new Error(`the bank answered ${answer.length} of ${debits.length} debits`);
  const resultOf = (i: number): DebitResult => (Array.isArray(answer) ? answer[i]! : { status: 'uncertain' });
  await applyDebitResults(
    ctx,
    debits.map((debit, i) => ({ debit, from, result: resultOf(i) })),
  );
}

/** Asks the banks about debits they may hold, and applies the answers. */
export async function askAboutDebits(ctx: AppContext, asked: readonly Debit[], from: DebitState): Promise<void> {
  for (const debits of byAccountAndBank(asked)) {
    const own = forAccount(ctx, debits[0]!.receiverId);
    const bank = mandateBankOf(own, debits[0]!.bankId);
    const orders = await ordersOf(own, debits);
    let answer;
    try {
      answer = await askBank(own, (call) => bank.debitStatuses(orders, call));
    } catch (error) {
      ctx.log.warn({ err: error, debitIds: orders.map((o) => o.orderId) }, 'the bank did not say what became of debits; they are asked again');
      answer = NO_ANSWER_IN_TIME;
    }
    await applyAnswers(own, debits, from, answer === NO_ANSWER_IN_TIME ? { status: 'uncertain' } : answer);
  }
}

/** Asks the bank about a debit it may hold, and applies the answer. */
export async function askAboutDebit(ctx: AppContext, debit: Debit, from: DebitState): Promise<void> {
  await askAboutDebits(ctx, [debit], from);
}

/**
 * Claims due debits (due → submitting) in one commit, skipping those another process is claiming,
 * and submits them at once: a claim never waits behind others, so it cannot look stale while unsent.
 */
async function claimDue(ctx: AppContext, time: ScanTime, limit: number): Promise<Debit[]> {
  const claimed = await inTransaction(ctx.db, async (trx) =>
    changeDebits(
      withDb(ctx, trx),
      (await debitsDue(trx, 'due', time, limit, { claim: true })).map((debit) => ({ debit, from: 'due', change: { event: 'claimed' } })),
    ),
  );
  await submitClaimed(ctx, claimed);
  return claimed;
}

/** Claims a due debit and submits it at once. False when another process took it first. */
export async function claimAndSubmit(ctx: AppContext, debit: Debit): Promise<boolean> {
  const claimed = await changeDebits(ctx, [{ debit, from: 'due', change: { event: 'claimed' } }]);
  await submitClaimed(ctx, claimed);
  return claimed.length === 1;
}

/** Returns how many debits were submitted and how many asked about: every account's, or `account`'s alone. */
export async function collectDebits(ctx: AppContext, account?: number): Promise<{ submitted: number; asked: number }> {
  let asked = 0;
  let submitted = 0;
  const time = ctx.clocks.scanTime(account);
  // A batch that could not be handled is tried again at the next run: asking for the next one
  // meanwhile would find it again.
  const safely = async (work: () => Promise<void>): Promise<boolean> => {
    try {
      await work();
      return true;
    } catch (error) {
      ctx.log.error({ err: error }, 'a batch of debits could not be handled; it is tried again at the next run');
      return false;
    }
  };
  const askAll = async (found: readonly Debit[], from: DebitState): Promise<boolean> => {
    const done = await Promise.all(inChunks(found, BATCH).map((batch) => safely(() => askAboutDebits(ctx, batch, from))));
    asked += found.length;
    return done.every(Boolean);
  };
  await askAll(await staleSubmissions(ctx.db, time, abandonedAfterMs(ctx.config.bankTimeoutMs), BATCH * LANES), 'submitting');
  for (const state of ['submitted', 'uncertain'] as const) {
    for (;;) {
      const due = await debitsDue(ctx.db, state, time, BATCH * LANES);
      if (!(await askAll(due, state)) || due.length < BATCH * LANES) break;
    }
  }
  // Each lane claims its next batch once its last one is answered, until none is left due.
  const lane = async () => {
    for (;;) {
      let claimed = 0;
      if (!(await safely(async () => void (claimed = (await claimDue(ctx, time, BATCH)).length)))) return;
      submitted += claimed;
      if (claimed === 0) return;
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  return { submitted, asked };
}
