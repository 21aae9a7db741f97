// `quipu listen`: a live tail of everything Quipu sends, like `stripe listen`. Each message is
// printed as it is written and each delivery attempt as it is logged, until Ctrl-C. It reads the
// database (DATABASE_URL), so it sees what every server and worker on it does; how nothing is
// missed or printed twice, and within which bound, is delivery/message-tail.ts (docs/events.md).
import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import { attemptEventView, eventView } from '../delivery/event-view.js';
import { MessageTail } from '../delivery/message-tail.js';
import { MESSAGE_KIND_NAMES } from '../domain/message-kinds.js';
import type { AttemptOfMessage } from '../store/messages.js';
import type { MessageRow } from '../store/schema.js';
import { oneOf, wholeNumber } from './options.js';
import { withRuntime } from './runtime.js';

const POLL_MS = 250;

function printMessage(row: MessageRow, json: boolean): void {
  const v = eventView(row);
  if (json) return console.log(JSON.stringify({ type: 'message', ...v }));
  console.log(`${v.created_at}  message  ${v.kind}  ${v.subject_type} ${v.subject_id}  -> ${v.destination}  ${v.id}`);
}

function printAttempt(row: AttemptOfMessage, json: boolean): void {
  const v = attemptEventView(row);
  if (json) return console.log(JSON.stringify({ type: 'attempt', ...v }));
  const outcome = v.outcome === 'delivered' ? 'delivered' : `failed${v.error ? `: ${v.error}` : ''}`;
  console.log(
    `${v.started_at}  attempt  ${v.kind}  ${v.subject_type} ${v.subject_id}  -> ${v.destination}  #${v.number} ${v.status_code ?? '-'} ${v.latency_ms} ms ${outcome}  ${v.event_id}`,
  );
}

export function listenCommand(): Command {
  return new Command('listen')
    .description('print each message as it is written and each delivery attempt as it finishes, until Ctrl-C')
    .option('--receiver <id>', 'only this account', wholeNumber)
    .option('--kind <kind>', `only this kind (${MESSAGE_KIND_NAMES.join(', ')})`, oneOf(MESSAGE_KIND_NAMES))
    .option('--json', 'print one JSON object a line, its "type" message or attempt')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const interrupted = new AbortController();
        const stop = () => interrupted.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        const json = options.json === true;
        const tail = new MessageTail(ctx.db, ctx.clocks, { receiverId: options.receiver, kinds: options.kind && [options.kind] });
        try {
          await tail.start();
          const which = `${options.receiver === undefined ? 'every account' : `account ${options.receiver}`}, ${options.kind ?? 'every kind'}`;
          console.error(`quipu listen: listening (${which}); Ctrl-C to stop`);
          while (!interrupted.signal.aborted) {
            const { messages, attempts } = await tail.poll();
            for (const row of messages) printMessage(row, json);
            for (const row of attempts) printAttempt(row, json);
            // Ctrl-C ends the wait (it rejects) as well as the loop.
            await sleep(POLL_MS, undefined, { signal: interrupted.signal }).catch(() => undefined);
          }
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
        }
      }),
    );
}
