// `quipu listen`: a live tail of everything Quipu sends and every API request it answers, like
// `stripe listen`. Each request is printed once its row is in the request log, each message as it
// is written and each delivery attempt as it is logged, until Ctrl-C. It reads the database
// (DATABASE_URL), so it sees what every server and worker on it does, and the request log where
// the installation keeps it (its own file in DATA_DIR, or that database); how nothing is missed or
// printed twice, and within which bound, is store/id-tail.ts and delivery/message-tail.ts
// (docs/events.md). With --forward-to, each message sent over HTTP is also POSTed there, signed
// as a delivery of it would be at that moment (delivery/http-transport.ts), and the answer printed.
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, InvalidArgumentError } from 'commander';
import type { AppContext } from '../app/context.js';
import { requestLogView } from '../app/request-log-queries.js';
import { attemptEventView, eventView } from '../delivery/event-view.js';
import { HttpTransport } from '../delivery/http-transport.js';
import { MessageTail } from '../delivery/message-tail.js';
import { kindRule, MESSAGE_KIND_NAMES } from '../domain/message-kinds.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { IdTail } from '../store/id-tail.js';
import type { AttemptOfMessage } from '../store/messages.js';
import type { MessageRow, RequestLogRow } from '../store/schema.js';
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

function printRequest(row: RequestLogRow, json: boolean): void {
  const v = requestLogView(row);
  if (json) return console.log(JSON.stringify({ type: 'request', ...v }));
  const ignored = v.ignored_fields === null ? '' : `  ignored: ${v.ignored_fields}`;
  console.log(`${v.at}  request  ${v.method} ${v.path} ${v.status} ${v.duration_ms} ms${ignored}  ${v.request_id}`);
}

/** An http(s) URL to forward messages to. */
function forwardUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') throw new InvalidArgumentError('must be an http:// or https:// URL');
  return url.toString();
}

/** Posts a message to `url` as its delivery would post it now, signed under its account's secret; prints what came back. */
async function forward(ctx: AppContext, transport: HttpTransport, row: MessageRow, url: string, json: boolean): Promise<void> {
  const account = await ctx.merchants.byReceiverId(row.receiver_id);
  // On the account's clock, as the worker signs its deliveries.
  const startedAt = ctx.clocks.of(row.receiver_id).now().getTime();
  const result = account
    ? await transport.send({ ...row, url }, { account, startedAt, publicOnly: false })
    : { delivered: false, statusCode: null, latencyMs: 0, error: 'the account could not be read' };
  const at = new Date(startedAt).toISOString();
  const outcome = result.delivered ? 'delivered' : 'failed';
  if (json) {
    const { statusCode: status_code, latencyMs: latency_ms, error } = result;
    return console.log(
      JSON.stringify({ type: 'forward', event_id: row.message_id, kind: row.kind, destination: url, status_code, latency_ms, outcome, error }),
    );
  }
  const failure = result.error ? `: ${result.error}` : '';
  console.log(
    `${at}  forward  ${row.kind}  -> ${url}  ${result.statusCode ?? '-'} ${result.latencyMs} ms ${outcome}${result.delivered ? '' : failure}  ${row.message_id}`,
  );
}

export function listenCommand(): Command {
  return new Command('listen')
    .description('print each API request, each message as it is written and each delivery attempt as it finishes, until Ctrl-C')
    .option('--receiver <id>', 'only this account', wholeNumber)
    .option('--kind <kind>', `only messages of this kind, and no API requests (${MESSAGE_KIND_NAMES.join(', ')})`, oneOf(MESSAGE_KIND_NAMES))
    .option('--json', 'print one JSON object a line, its "type" request, message, attempt or forward')
    .option('--forward-to <url>', 'also POST each message sent over HTTP to this URL, signed as its delivery would be, and print the answer', forwardUrl)
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const interrupted = new AbortController();
        const stop = () => interrupted.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        const json = options.json === true;
        const forwardTo: string | undefined = options.forwardTo;
        const tail = new MessageTail(ctx.db, ctx.clocks, { receiverId: options.receiver, kinds: options.kind && [options.kind] });
        const { store, kept } = ctx.requestRecords;
        const requests =
          options.kind === undefined && kept
            ? new IdTail<RequestLogRow>(
                {
                  last: () => kept.last(),
                  after: (afterId, ids, limit) => kept.after(afterId, ids, limit),
                  id: (row) => Number(row.request_log_id),
                },
                (row) => options.receiver === undefined || Number(row.receiver_id) === options.receiver,
              )
            : undefined;
        // The URL is the one of whoever runs the command, who reads the database already: the
        // installation's rules for accounts' notify URLs (https only, allowed hosts, each account's hosts) are not its.
        const transport =
          forwardTo === undefined
            ? undefined
            : new HttpTransport(ctx.config.deliveryTimeoutMs, 1, { httpAllowed: true, allowedHosts: [], accountHosts: false, linkLocalAllowed: true });
        try {
          await requests?.start(wallClockMs(ctx.clocks));
          await tail.start();
          const everything = kept
            ? 'every kind and API requests'
            : `every kind; ${store === 'log' ? 'API requests go to the log stream' : 'the request log is off'}`;
          const which = `${options.receiver === undefined ? 'every account' : `account ${options.receiver}`}, ${options.kind ?? everything}`;
          console.error(`quipu listen: listening (${which}${forwardTo ? `, forwarding to ${forwardTo}` : ''}); Ctrl-C to stop`);
          while (!interrupted.signal.aborted) {
            for (const row of (await requests?.poll(wallClockMs(ctx.clocks))) ?? []) printRequest(row, json);
            const { messages, attempts } = await tail.poll();
            for (const row of messages) {
              printMessage(row, json);
              if (transport && kindRule(row.kind)?.channel === 'http') await forward(ctx, transport, row, forwardTo!, json);
            }
            for (const row of attempts) printAttempt(row, json);
            // Ctrl-C ends the wait (it rejects) as well as the loop.
            await sleep(POLL_MS, undefined, { signal: interrupted.signal }).catch(() => undefined);
          }
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          await transport?.close();
        }
      }),
    );
}
