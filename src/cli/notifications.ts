// `quipu notifications list|show|resend`: the operator's view of an account's notification delivery
// (account-choice.ts).
import { Command } from 'commander';
import { getMessage, listMessages } from '../app/message-queries.js';
import { resendMessage } from '../app/resend-message.js';
import { notificationDetailView, notificationView } from '../delivery/notification-view.js';
import { PAYMENT_NOTIFICATION_KINDS } from '../domain/message-kinds.js';
import { NOTIFICATION_STATUSES } from '../store/messages.js';
import { printHuman } from './merchant-view.js';
import { chosenAccount, withAccountChoice } from './account-choice.js';
import { oneOf, wholeNumber } from './options.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

const NOTIFICATIONS = { kinds: PAYMENT_NOTIFICATION_KINDS, noun: 'Notification' };

export function notificationsCommand(): Command {
  const notifications = new Command('notifications').description('payment notifications and their delivery attempts');

  withAccountChoice(notifications.command('list').description("list an account's notifications, newest first"))
    .option('--payment <id>', 'only this payment')
    .option('--status <status>', `only this status (${NOTIFICATION_STATUSES.join(', ')})`, oneOf(NOTIFICATION_STATUSES))
    .option('--limit <n>', 'at most this many', wholeNumber, 100)
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const rows = await listMessages(ctx, {
          receiverId: (await chosenAccount(ctx, options)).receiverId,
          kinds: PAYMENT_NOTIFICATION_KINDS,
          subjectId: options.payment,
          status: options.status,
          limit: options.limit,
        });
        const views = rows.map(notificationView);
        if (options.json) return console.log(JSON.stringify(views));
        printTable(
          [
            { header: 'ID', value: (v) => v.notification_id },
            { header: 'STATUS', value: (v) => v.status },
            { header: 'ATTEMPTS', value: (v) => v.attempts, right: true },
            { header: 'RECEIVER', value: (v) => v.receiver_id },
            { header: 'PAYMENT', value: (v) => v.payment_id },
            { header: 'VERSION', value: (v) => v.api_version },
            { header: 'URL', value: (v) => v.url },
          ],
          views,
        );
      }),
    );

  notifications
    .command('show <notification_id>')
    .description('show one notification, its body and every attempt')
    .option('--json', 'print JSON')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const { message, attempts } = await getMessage(ctx, id, NOTIFICATIONS);
        const view = notificationDetailView(message, attempts);
        if (options.json) return console.log(JSON.stringify(view));
        const { attempt_log: log, ...rest } = view;
        printHuman(rest);
        for (const a of log) {
          console.log(
            `  #${a.number} ${a.trigger.padEnd(6)} ${a.started_at} (due ${a.due_at})  ${a.outcome.padEnd(9)} ${a.http_status ?? '-'}  ${a.latency_ms} ms  ${a.error ?? ''}`,
          );
        }
      }),
    );

  notifications
    .command('resend <notification_id>')
    .description('send a notification again now (same body and ids)')
    .option('--json', 'print JSON')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const view = notificationView(await resendMessage(ctx, id, NOTIFICATIONS));
        if (options.json) console.log(JSON.stringify(view));
        else console.log(`${view.notification_id} queued for delivery at ${view.next_attempt_at}`);
      }),
    );
  return notifications;
}
