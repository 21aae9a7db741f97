// THE table of background jobs. Each runs in one process of the installation at a time, whichever
// `quipu serve` (unless RUN_WORKER=false) or `quipu worker` takes it first, and is next due `everyMs`
// of the developer clock after its last run finished (src/jobs/runner.ts). A new job is a new row.
// A job whose work falls due on each account's own clock is `perAccount`: when one account's clock
// moves (or its snapshot is restored), it runs at once for that account alone, and the others, the
// installation's housekeeping, wait for their time.
import { collectBankCredits } from '../app/collect-bank-credits.js';
import { collectDebits } from '../app/collect-debits.js';
import { collectMandateNews } from '../app/collect-mandate-news.js';
import type { AppContext } from '../app/context.js';
import { deliverFunds } from '../app/deliver-funds.js';
import { pruneExpired } from '../app/prune-expired.js';
import { recoverStaleTransfers } from '../app/recover-stale-transfers.js';
import { resolveUncertainTransfers } from '../app/resolve-transfers.js';
import { sendDueReminders } from '../app/send-reminders.js';

export interface Job {
  /** Its row in the jobs table and its name in `quipu jobs list`: renamed, it would start over as a new job. */
  name: string;
  /** Developer-clock milliseconds from the end of one run to the start of the next. */
  everyMs: number;
  /** Every account's work; given an account, that account's alone (perAccount). */
  run: (ctx: AppContext, account?: number) => Promise<unknown>;
  /**
   * Its work falls due on each account's clock: a move of one account's clock runs it for that
   * account at once. The banks' news of mandates comes in one feed for every account, asked for whole.
   */
  perAccount?: true;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export const JOBS: readonly Job[] = [
  // Bank polling: transfers a stopped process left waiting for their bank, the banks' answers about
  // the transfers they left uncertain, and the credits they booked on the collection account.
  { name: 'recover-stale-transfers', everyMs: MINUTE_MS, run: recoverStaleTransfers, perAccount: true },
  { name: 'resolve-uncertain-transfers', everyMs: MINUTE_MS, run: resolveUncertainTransfers },
  { name: 'collect-bank-credits', everyMs: MINUTE_MS, run: collectBankCredits },
  // Automatic payments (docs/automatic-payments.md): charge intents' debits submitted to their
  // banks within seconds and asked about on their settlement dates; the banks' news of mandates.
  { name: 'collect-debits', everyMs: 5_000, run: collectDebits, perAccount: true },
  { name: 'collect-mandate-news', everyMs: MINUTE_MS, run: collectMandateNews, perAccount: true },
  // Payers' reminders of unpaid payments that are due (docs/emails.md).
  { name: 'send-reminders', everyMs: MINUTE_MS, run: sendDueReminders, perAccount: true },
  // Settlement: the funds of paid payments whose delivery date has come, and the accountability
  // report of each delivery to the receiver's rendition_url (docs/accountability.md).
  { name: 'deliver-funds', everyMs: MINUTE_MS, run: deliverFunds, perAccount: true },
  { name: 'prune-expired', everyMs: HOUR_MS, run: pruneExpired },
];
