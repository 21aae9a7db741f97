// `quipu reconcile <file>` feeds a bank statement (CSV or JSON lines, see docs/payment-cycle.md)
// through the same reconciliation as the operator API; `quipu credits list` shows what was
// recorded, above all the unmatched credits an operator has to resolve.
import fs from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { getCredits } from '../app/credit-queries.js';
import { recordCredits } from '../app/record-credits.js';
import type { RecordedCredit } from '../domain/bank-credit.js';
import { fieldError } from '../domain/errors.js';
import { parseStatement, statementFormat } from '../domain/statement.js';
import { creditResource } from '../http/operator/credit-resource.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

function format(value: string): 'csv' | 'jsonl' {
  if (value !== 'csv' && value !== 'jsonl') throw new InvalidArgumentError('must be csv or jsonl');
  return value;
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive whole number');
  return Number(value);
}

function readStatement(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw fieldError('file', `cannot be read: ${(error as Error).message}`);
  }
}

export function reconcileCommand(): Command {
  return new Command('reconcile')
    .description('record the credits of a bank statement file and reconcile the payments they pay (a statement imported twice counts once)')
    .argument('<file>', 'statement: CSV with a header row, or JSON lines')
    .option('--format <format>', 'csv or jsonl (default: from the file name, else from its content)', format)
    .option('--json', 'print JSON')
    .action(async (file: string, options) =>
      withRuntime(async (ctx) => {
        const content = readStatement(file);
        const credits = parseStatement(content, options.format ?? statementFormat(file, content));
        const outcomes = await recordCredits(ctx, credits, 'statement');
        const count = (status: string) => outcomes.filter((o) => o.status === status).length;
        const summary = { credits: outcomes.length, matched: count('matched'), unmatched: count('unmatched'), duplicates: count('duplicate') };
        if (options.json) {
          console.log(JSON.stringify({ ...summary, results: outcomes }));
          return;
        }
        console.log(`${summary.credits} credits: ${summary.matched} matched, ${summary.unmatched} unmatched, ${summary.duplicates} already recorded`);
        printTable(
          [
            { header: 'BANK REFERENCE', value: (o) => o.bankReference },
            { header: 'STATUS', value: (o) => o.status },
            { header: 'DETAIL', value: (o) => (o.status === 'matched' ? `payment ${o.paymentId}` : o.status === 'unmatched' ? o.reason : null) },
          ],
          outcomes,
        );
      }),
    );
}

export function creditsCommand(): Command {
  const credits = new Command('credits').description('credits reported to the collection accounts');
  credits
    .command('list')
    .description('list recorded credits, newest first, a page at a time')
    .option('--unmatched', 'only credits that matched no payment')
    .option('--matched', 'only credits that reconciled a payment')
    .option('--account <account>', 'only credits to this account')
    .option('--from <date-time>', 'only credits the bank credited at or after this ISO 8601 date-time')
    .option('--to <date-time>', 'only credits the bank credited before this ISO 8601 date-time')
    .option('--limit <n>', 'at most this many a page', wholeNumber, 100)
    .option('--cursor <cursor>', 'the page that starts there (printed after a page that has a next one)')
    .option('--all', 'every page, one after the other')
    .option('--json', 'print JSON: {"credits": [...], "next_cursor": ...}')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        if (options.unmatched && options.matched) throw new InvalidArgumentError('--unmatched and --matched exclude each other');
        const status = options.unmatched ? 'unmatched' : options.matched ? 'matched' : undefined;
        const request = { status, account: options.account, creditedFrom: options.from, creditedTo: options.to, limit: options.limit } as const;
        const listed: RecordedCredit[] = [];
        let cursor: string | undefined = options.cursor;
        do {
          const page = await getCredits(ctx, { ...request, cursor });
          listed.push(...page.credits);
          cursor = page.nextCursor ?? undefined;
        } while (options.all && cursor !== undefined);
        const views = listed.map(creditResource);
        if (options.json) {
          console.log(JSON.stringify({ credits: views, next_cursor: cursor ?? null }));
          return;
        }
        printTable(
          [
            { header: 'BANK REFERENCE', value: (v) => v.bank_reference },
            { header: 'STATUS', value: (v) => v.status },
            { header: 'AMOUNT', value: (v) => `${v.amount} ${v.currency}`, right: true },
            { header: 'ACCOUNT', value: (v) => v.account },
            { header: 'REFERENCE', value: (v) => v.reference },
            { header: 'PAYMENT OR REASON', value: (v) => v.payment_id ?? v.reason },
          ],
          views,
          cursor,
        );
      }),
    );
  return credits;
}
