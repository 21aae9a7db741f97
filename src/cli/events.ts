// `quipu events list|show|resend`: the operator's view of everything Quipu sends about an account
// (account-choice.ts), of every kind.
import { Command } from 'commander';
import { getEvent } from '../app/event-queries.js';
import { pageOfMessages } from '../app/message-queries.js';
import { nextAttempt } from '../app/attempt-wait.js';
import { resendMessage } from '../app/resend-message.js';
import { eventDetailView, eventView } from '../delivery/event-view.js';
import { attemptView } from '../delivery/message-view.js';
import { DEFAULT_PAGE_SIZE } from '../domain/message-page.js';
import { MESSAGE_KIND_NAMES } from '../domain/message-kinds.js';
import { MESSAGE_STATUSES } from '../store/messages.js';
import { printHuman } from './merchant-view.js';
import { lastAttempt } from './attempt-line.js';
import { chosenAccount, withAccountChoice } from './account-choice.js';
import { oneOf, wholeNumber } from './options.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

export function eventsCommand(): Command {
  const events = new Command('events').description('everything Quipu sends (every kind of message) and its delivery attempts');

  withAccountChoice(events.command('list').description("list an account's events, newest first, a page at a time"))
    .option('--kind <kind>', `only this kind (${MESSAGE_KIND_NAMES.join(', ')})`, oneOf(MESSAGE_KIND_NAMES))
    .option('--subject <id>', 'only events about this payment, ...')
    .option('--status <status>', `only this status (${MESSAGE_STATUSES.join(', ')})`, oneOf(MESSAGE_STATUSES))
    .option('--limit <n>', 'at most this many', wholeNumber, DEFAULT_PAGE_SIZE)
    .option('--cursor <cursor>', 'the page that starts there (printed after a page that has a next one)')
    .option('--json', 'print JSON: {"events": [...], "has_more": ..., "next_cursor": ...}')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const page = await pageOfMessages(ctx, {
          receiverId: (await chosenAccount(ctx, options)).receiverId,
          kinds: options.kind === undefined ? undefined : [options.kind],
          subjectId: options.subject,
          status: options.status,
          cursor: options.cursor,
          limit: options.limit,
        });
        const views = page.messages.map(eventView);
        if (options.json) return console.log(JSON.stringify({ events: views, has_more: page.nextCursor !== null, next_cursor: page.nextCursor }));
        printTable(
          [
            { header: 'ID', value: (v) => v.id },
            { header: 'STATUS', value: (v) => v.status },
            { header: 'ATTEMPTS', value: (v) => v.attempts, right: true },
            { header: 'RECEIVER', value: (v) => v.receiver_id },
            { header: 'KIND', value: (v) => v.kind },
            { header: 'SUBJECT', value: (v) => `${v.subject_type} ${v.subject_id}` },
            { header: 'DESTINATION', value: (v) => v.destination },
          ],
          views,
          page.nextCursor,
        );
      }),
    );

  events
    .command('show <event_id>')
    .description('show one event, its body, and every attempt with the headers it was sent with')
    .option('--json', 'print JSON')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const { message, attempts, secret } = await getEvent(ctx, id);
        const view = eventDetailView(message, attempts, secret);
        if (options.json) return console.log(JSON.stringify(view));
        const { attempt_log: log, ...rest } = view;
        printHuman(rest);
        for (const a of log) {
          console.log(
            `  #${a.number} ${a.trigger.padEnd(6)} ${a.started_at} (due ${a.due_at})  ${a.outcome.padEnd(9)} ${a.status_code ?? '-'}  ${a.latency_ms} ms  ${a.error ?? ''}`,
          );
          // What every attempt sends is printed above; below each attempt, what was its own: its signature.
          for (const [name, value] of Object.entries(a.headers ?? {})) if (view.headers?.[name] !== value) console.log(`      ${name}: ${value}`);
        }
      }),
    );

  events
    .command('resend <event_id>')
    .description('send an event again now (same body and ids), as a new round of delivery')
    .option('--wait', 'wait until its attempt is logged (a running quipu serve or quipu worker sends it) and print the outcome; exit status 1 if it failed')
    .option('--timeout <seconds>', 'how long --wait waits at most (exit status 1 when no attempt was logged by then)', wholeNumber, 30)
    .option('--json', 'print JSON (with --wait: the event and its "attempt", null if none was logged in time)')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const resent = await resendMessage(ctx, id, { noun: 'Event' });
        const view = eventView(resent);
        if (!options.wait) {
          if (options.json) console.log(JSON.stringify(view));
          else console.log(`${view.id} queued for delivery at ${view.next_attempt_at}`);
          return;
        }
        if (!options.json) console.log(`${view.id} queued for delivery at ${view.next_attempt_at}; waiting for its attempt`);
        const logged = await nextAttempt(ctx, id, resent.attempts, options.timeout * 1000);
        const attempt = logged && attemptView(logged);
        if (options.json) console.log(JSON.stringify({ ...view, attempt: attempt ?? null }));
        else if (attempt) console.log(`#${attempt.number} ${attempt.trigger} ${attempt.started_at}  ${lastAttempt(attempt)}`);
        if (!attempt) console.error(`quipu: no attempt of ${id} was logged within ${options.timeout} s: is a quipu serve or quipu worker running?`);
        if (attempt?.outcome !== 'delivered') process.exitCode = 1;
      }),
    );
  return events;
}
