// `quipu payments list`: an account's payments, filtered and searched as GET /quipu/v1/payments
// does it (docs/payment-list.md), a page at a time.
import { Command } from 'commander';
import { listPayments } from '../app/payment-list.js';
import { formatAmount } from '../domain/money.js';
import { DEFAULT_PAYMENT_PAGE, MAX_PAYMENT_PAGE, parsePaymentFilter } from '../domain/payment-filter.js';
import { PAYMENT_STATUSES, STATUS_DETAILS } from '../domain/payment-status.js';
import { paymentResource } from '../http/payment-resource.js';
import { chosenAccount, withAccountChoice } from './account-choice.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

export function paymentListCommand(): Command {
  return withAccountChoice(new Command('list').description("list an account's payments, newest first, a page at a time"))
    .option('--status <status>', `only this status (${PAYMENT_STATUSES.join(', ')})`)
    .option('--status-detail <detail>', `only this status_detail (${STATUS_DETAILS.join(', ')})`)
    .option('--from <date>', 'created at or after: YYYY-MM-DD (the day in Chile) or an ISO 8601 date-time with a time zone')
    .option('--to <date>', 'created before, as --from')
    .option('--q <text>', 'text found in the subject, payment_id, transaction_id or payer email, whatever its case')
    .option('--limit <n>', `at most this many, up to ${MAX_PAYMENT_PAGE}`, String(DEFAULT_PAYMENT_PAGE))
    .option('--cursor <cursor>', 'the page that starts there (printed after a page that has a next one)')
    .option('--json', 'print JSON as GET /quipu/v1/payments answers: {"items": [...], "next_cursor": ...}')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const merchant = await chosenAccount(ctx, options);
        const { status, statusDetail, from, to, q, limit, cursor } = options;
        const page = await listPayments(ctx, merchant, parsePaymentFilter({ status, status_detail: statusDetail, from, to, q, limit, cursor }));
        if (options.json) {
          const items = page.payments.map((p) => paymentResource(ctx.config.publicBaseUrl, p, merchant));
          return console.log(JSON.stringify({ items, next_cursor: page.nextCursor ?? null }));
        }
        printTable(
          [
            { header: 'ID', value: (p) => p.paymentId },
            { header: 'CREATED', value: (p) => p.createdAt.toISOString() },
            { header: 'STATUS', value: (p) => `${p.status}/${p.statusDetail}` },
            { header: 'AMOUNT', value: (p) => `${formatAmount(p.amount)} ${p.currency}`, right: true },
            { header: 'SUBJECT', value: (p) => p.subject },
          ],
          page.payments,
          page.nextCursor,
        );
      }),
    );
}
