// The credits each bank booked on the collection account, as the bank reports them: housekeeping
// asks every connector for those after the cursor it gave last time (kept in the settings table)
// and feeds them through recordCredits, the path of the operator API and statement files. A match
// reconciles its payment, the rest is kept for an operator, and a credit reported again (already
// recorded from the transfer's own answer, or collected by two processes at once) counts once.
import type { BankConnector } from '../bank/connector.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { inTransaction } from '../store/transaction.js';
import { askBank, NO_ANSWER_IN_TIME } from './ask-bank.js';
import { type AppContext, withDb } from './context.js';
import { recordCredits } from './record-credits.js';

const cursorSetting = (bankId: string) => `bank-credits-cursor:${bankId}`;

/** Returns how many credits were new. */
async function collectFrom(ctx: AppContext, connector: BankConnector): Promise<number> {
  let cursor = (await readSetting(ctx.db, cursorSetting(connector.bankId))) ?? null;
  let recorded = 0;
  for (;;) {
    const report = await askBank(ctx, (call) => connector.credits(cursor, call));
    if (report === NO_ANSWER_IN_TIME) {
      ctx.log.warn({ bankId: connector.bankId, timeoutMs: ctx.config.bankTimeoutMs }, 'the bank did not report its credits in time');
      return recorded;
    }
    if (report.credits.length === 0) return recorded;
    const next = report.cursor;
    if (next === null) throw new Error(`bank ${connector.bankId} reported credits without a cursor to go on from`);
    // The cursor moves with the credits it covers: a crash in between asks for them again, and they count once.
    const outcomes = await inTransaction(ctx.db, async (trx) => {
      const recordedNow = await recordCredits(withDb(ctx, trx), report.credits, connector.bankId);
      await writeSetting(trx, cursorSetting(connector.bankId), next);
      return recordedNow;
    });
    recorded += outcomes.filter((o) => o.status !== 'duplicate').length;
    if (next === cursor) return recorded;
    cursor = next;
  }
}

/** Asks every bank; one that fails is asked again at the next round, the others are not held up. */
export async function collectBankCredits(ctx: AppContext): Promise<number> {
  let recorded = 0;
  for (const connector of ctx.banks.all()) {
    try {
      recorded += await collectFrom(ctx, connector);
    } catch (error) {
      ctx.log.error({ err: error, bankId: connector.bankId }, 'could not collect the credits a bank reported');
    }
  }
  return recorded;
}
