// `quipu emails list|show`: the operator's view of the emails Quipu wrote to an account's payers
// (account-choice.ts), sent through the mail server or kept in the local inbox.
import { Command } from 'commander';
import { getMessage, pageOfMessages } from '../app/message-queries.js';
import { emailDetailView, emailView } from '../delivery/email-view.js';
import { EMAIL_KINDS } from '../domain/message-kinds.js';
import { DEFAULT_PAGE_SIZE } from '../domain/message-page.js';
import { MESSAGE_STATUSES } from '../store/messages.js';
import { printHuman } from './merchant-view.js';
import { chosenAccount, withAccountChoice } from './account-choice.js';
import { oneOf, wholeNumber } from './options.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

export function emailsCommand(): Command {
  const emails = new Command('emails').description(
    'emails to payers (collection requests, reminders, payment confirmations): the local inbox and what went to the mail server',
  );

  withAccountChoice(emails.command('list').description("list the emails to an account's payers, newest first"))
    .option('--payment <id>', 'only this payment')
    .option('--status <status>', `only this status (${MESSAGE_STATUSES.join(', ')})`, oneOf(MESSAGE_STATUSES))
    .option('--limit <n>', 'at most this many', wholeNumber, DEFAULT_PAGE_SIZE)
    .option('--cursor <cursor>', 'the page after this one (the next_cursor --json printed)')
    .option('--json', 'print JSON: {"emails": [...], "has_more": ..., "next_cursor": ...}')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const page = await pageOfMessages(ctx, {
          receiverId: (await chosenAccount(ctx, options)).receiverId,
          kinds: EMAIL_KINDS,
          subjectId: options.payment,
          status: options.status,
          cursor: options.cursor,
          limit: options.limit,
        });
        const views = page.messages.map(emailView);
        if (options.json) return console.log(JSON.stringify({ emails: views, has_more: page.nextCursor !== null, next_cursor: page.nextCursor }));
        printTable(
          [
            { header: 'ID', value: (v) => v.id },
            { header: 'STATUS', value: (v) => v.status },
            { header: 'CREATED', value: (v) => v.created_at },
            { header: 'RECEIVER', value: (v) => v.receiver_id },
            { header: 'PAYMENT', value: (v) => v.payment_id },
            { header: 'KIND', value: (v) => v.kind },
            { header: 'TO', value: (v) => v.to },
            { header: 'SUBJECT', value: (v) => v.subject },
          ],
          views,
          page.nextCursor,
        );
      }),
    );

  emails
    .command('show <email_id>')
    .description('show one email, its text and every attempt')
    .option('--json', 'print JSON')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const { message, attempts } = await getMessage(ctx, id, { kinds: EMAIL_KINDS, noun: 'Email' });
        const view = emailDetailView(message, attempts);
        if (options.json) return console.log(JSON.stringify(view));
        const { attempt_log: log, text, html: _html, attachments, ...rest } = view;
        printHuman(rest);
        for (const a of attachments) console.log(`attachment: ${a.filename} (${a.content_type}, ${Buffer.from(a.content_base64, 'base64').length} bytes)`);
        console.log(`\n${text}`);
        for (const a of log) {
          console.log(
            `  #${a.number} ${a.trigger.padEnd(6)} ${a.started_at} (due ${a.due_at})  ${a.outcome.padEnd(9)} ${a.status_code ?? '-'}  ${a.latency_ms} ms  ${a.error ?? a.response_excerpt ?? ''}`,
          );
        }
      }),
    );
  return emails;
}
