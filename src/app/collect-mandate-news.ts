// The changes banks report about the mandates signed at them (activations after a bank's approval,
// rejections, revocations by the payer), applied to their subscriptions: housekeeping asks every
// bank that takes mandates for the news after the cursor it gave last time, kept in the settings
// table and moved in the transaction that applies the news, so a crash asks again and a piece of
// news applied twice changes nothing (changeSubscription's ifAllowed).
import type { BankConnector, MandateNews } from '../bank/connector.js';
import type { MandateEvent, MandateOrigin } from '../domain/mandate-status.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { findSubscriptionById } from '../store/subscriptions.js';
import { inTransaction } from '../store/transaction.js';
import { askBank, NO_ANSWER_IN_TIME } from './ask-bank.js';
import { changeSubscription } from './change-subscription.js';
import { type AppContext, withDb } from './context.js';

const cursorSetting = (bankId: string) => `mandate-news-cursor:${bankId}`;

const NEWS_EVENT: Record<MandateNews['status'], { event: MandateEvent; origin: MandateOrigin } | undefined> = {
  pending: undefined,
  active: { event: 'enabled-by-bank', origin: 'bank' },
  rejected: { event: 'rejected-by-bank', origin: 'bank' },
  revoked: { event: 'revoked-by-payer', origin: 'payer' },
};

async function apply(ctx: AppContext, bankId: string, news: MandateNews): Promise<void> {
  const subscription = await findSubscriptionById(ctx.db, news.mandateId);
  if (!subscription) return;
  // The bank has a signature Quipu never recorded (its process stopped while the bank signed): the
  // news records it first.
  if (subscription.state === 'created' && (news.status === 'active' || news.status === 'pending')) {
    await changeSubscription(ctx, news.mandateId, {
      event: 'signed',
      origin: 'payer',
      reason: `Signed at the bank (${news.reason})`,
      fields: { bank_id: bankId },
    });
  }
  const change = NEWS_EVENT[news.status];
  if (change) await changeSubscription(ctx, news.mandateId, { ...change, reason: news.reason }, { ifAllowed: true });
}

async function collectFrom(ctx: AppContext, connector: BankConnector): Promise<number> {
  const bank = connector.mandates!;
  let cursor = (await readSetting(ctx.db, cursorSetting(connector.bankId))) ?? null;
  let applied = 0;
  for (;;) {
    const report = await askBank(ctx, (call) => bank.mandateNews(cursor, call));
    if (report === NO_ANSWER_IN_TIME) {
      ctx.log.warn({ bankId: connector.bankId }, 'the bank did not report its mandate news in time');
      return applied;
    }
    if (report.news.length === 0 || report.cursor === cursor) return applied;
    const next = report.cursor;
    await inTransaction(ctx.db, async (trx) => {
      for (const news of report.news) await apply(withDb(ctx, trx), connector.bankId, news);
      await writeSetting(trx, cursorSetting(connector.bankId), next!);
    });
    applied += report.news.length;
    cursor = next;
  }
}

/** Asks every bank that takes mandates; one that fails is asked again at the next round. */
export async function collectMandateNews(ctx: AppContext): Promise<number> {
  let applied = 0;
  for (const connector of ctx.banks.all().filter((c) => c.mandates)) {
    try {
      applied += await collectFrom(ctx, connector);
    } catch (error) {
      ctx.log.error({ err: error, bankId: connector.bankId }, 'could not collect the mandate news of a bank');
    }
  }
  return applied;
}
