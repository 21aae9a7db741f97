// Snapshots of a sandbox account with 10,000 payments and 1,000 subscriptions, on SQLite and on
// PostgreSQL: a `quipu serve` process per database, an account made over HTTP, its records written
// straight into the database as copies of real ones (a payment paid at DemoBank and notified, a
// subscription), then POST .../snapshots and POST .../restore over HTTP, each timed from the request
// to its answer, against the issue's targets for a restore (1 s on SQLite, 3 s on PostgreSQL).
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { type Kysely, sql } from 'kysely';
import { newNotificationToken, newPaymentId } from '../src/domain/ids.js';
import { openDatabase } from '../src/store/database.js';
import type { DB } from '../src/store/schema.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { eventually, startReceiver } from '../test/helpers/notification-receiver.js';
import { freePort, quipu, startServerProcess, waitForHttp } from '../test/helpers/quipu-processes.js';
import { NEW_SUBSCRIPTION } from '../test/helpers/subscriptions.js';
import { fmt } from './load.js';

const PAYMENTS = Number(process.env.BENCH_SNAPSHOT_PAYMENTS ?? 10_000);
const SUBSCRIPTIONS = PAYMENTS / 10;
/** Another account's payments, in the same tables: a snapshot and a restore touch only the account's. */
const OTHERS = PAYMENTS / 10;
const SNAPSHOTS = 3;
const RESTORES = 5;
const TARGET_MS = { sqlite: 1_000, postgres: 3_000 } as const;
const CHUNK = 250;
const STATES: [string, string][] = [
  ['done', 'normal'],
  ['pending', 'pending'],
  ['done', 'normal'],
  ['verifying', 'pending'],
  ['done', 'marked-paid-by-receiver'],
];

async function post(url: string, path: string, body?: unknown, apiKey?: string): Promise<{ ms: number; body: any }> {
  const started = performance.now();
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
  return { ms, body: answer };
}

async function inChunks<T>(db: Kysely<DB>, table: keyof DB, rows: T[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let c = 0; c < rows.length; c += CHUNK)
      await trx
        .insertInto(table)
        .values(rows.slice(c, c + CHUNK) as never)
        .execute();
  });
}

interface Seeded {
  rows: number;
  seconds: number;
}

/**
 * `PAYMENTS` payments of the account, each with its notification and the attempt that delivered it,
 * and `SUBSCRIPTIONS` subscriptions with a line of history each: copies of the templates, with ids of
 * their own; `OTHERS` payments of another account.
 */
async function seed(dbUrl: string, receiverId: number, otherId: number, template: { paymentId: string; subscriptionId: string }): Promise<Seeded> {
  const started = Date.now();
  const { db, dialect, close } = openDatabase(dbUrl);
  try {
    const payment = await db.selectFrom('payments').selectAll().where('payment_id', '=', template.paymentId).executeTakeFirstOrThrow();
    const message = await db.selectFrom('messages').selectAll().where('subject_id', '=', template.paymentId).executeTakeFirstOrThrow();
    const { attempt_id: _attemptId, ...attempt } = await db
      .selectFrom('message_attempts')
      .selectAll()
      .where('message_id', '=', message.message_id)
      .executeTakeFirstOrThrow();
    const subscription = await db.selectFrom('subscriptions').selectAll().where('subscription_id', '=', template.subscriptionId).executeTakeFirstOrThrow();
    const payments = (owner: number, count: number) =>
      Array.from({ length: count }, (_, i) => {
        const [status, status_detail] = STATES[i % STATES.length]!;
        const at = payment.created_at - i * 60_000;
        return {
          ...payment,
          payment_id: newPaymentId(randomBytes),
          receiver_id: owner,
          notification_token: newNotificationToken(randomBytes, at),
          status,
          status_detail,
          subject: `Order ${i}`,
          transaction_id: `INV-${owner}-${i}`,
          created_at: at,
          updated_at: at,
        };
      });
    const own = payments(receiverId, PAYMENTS);
    const messages = own.map((p) => ({
      ...message,
      message_id: randomUUID(),
      subject_id: p.payment_id,
      body: message.body.replaceAll(template.paymentId, p.payment_id),
    }));
    const subscriptions = Array.from({ length: SUBSCRIPTIONS }, (_, i) => ({ ...subscription, subscription_id: randomUUID(), name: `Plan ${i}` }));
    await inChunks(db, 'payments', own);
    await inChunks(db, 'payments', payments(otherId, OTHERS));
    await inChunks(db, 'messages', messages);
    await inChunks(
      db,
      'message_attempts',
      messages.map((m) => ({ ...attempt, message_id: m.message_id })),
    );
    await inChunks(db, 'subscriptions', subscriptions);
    await inChunks(
      db,
      'subscription_changes',
      subscriptions.map((s) => ({
        change_id: randomUUID(),
        subscription_id: s.subscription_id,
        event: 'created',
        from_state: 'created',
        to_state: 'created',
        origin: 'developer',
        reason: '',
        changed_at: s.created_at,
      })),
    );
    if (dialect === 'postgres') await sql`analyze`.execute(db);
    return { rows: own.length * 3 + subscriptions.length * 2, seconds: (Date.now() - started) / 1000 };
  } finally {
    await close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Measured {
  database: 'sqlite' | 'postgres';
  seeded: Seeded;
  rows: number;
  jsonMb: number;
  snapshotMs: number[];
  restoreMs: number[];
}

async function measure(kind: 'sqlite' | 'postgres', adminUrl: string): Promise<Measured> {
  const database = await createTestDatabase(kind, adminUrl, { migrated: true });
  const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false' };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = startServerProcess({ ...env, PORT: String(port) });
  const receiver = await startReceiver();
  try {
    await waitForHttp(`${url}/readyz`);
    const account = (await post(url, '/sandbox/accounts', { name: 'Bench', notify_url: receiver.url })).body as { receiver_id: number; api_key: string };
    const other = (await post(url, '/sandbox/accounts', { name: 'Other' })).body as { receiver_id: number };
    const paymentId = (await post(url, '/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Template' }, account.api_key)).body.payment_id as string;
    await quipu(['payments', 'pay', paymentId], env);
    await receiver.waitFor((requests) => requests.some((r) => r.body.includes(paymentId)));
    const subscriptionId = (await post(url, '/v1/automatic-payment/subscription', NEW_SUBSCRIPTION, account.api_key)).body.subscription_id as string;
    const opened = openDatabase(database.url);
    // The attempt that delivered the template's notification is recorded once the worker is done with it.
    await eventually(
      () => opened.db.selectFrom('messages').select('status').where('subject_id', '=', paymentId).executeTakeFirst(),
      (row) => row?.status === 'delivered',
    );
    await opened.close();
    const seeded = await seed(database.url, account.receiver_id, other.receiver_id, { paymentId, subscriptionId });

    const path = `/sandbox/accounts/${account.receiver_id}/snapshots`;
    const snapshotMs: number[] = [];
    let snapshot: { snapshot_id: string; rows: number } | undefined;
    for (let i = 0; i < SNAPSHOTS; i++) {
      const taken = await post(url, path);
      snapshotMs.push(taken.ms);
      snapshot = taken.body;
    }
    const restoreMs: number[] = [];
    for (let i = 0; i < RESTORES; i++) restoreMs.push((await post(url, `${path}/${snapshot!.snapshot_id}/restore`)).ms);
    const check = openDatabase(database.url);
    try {
      const { count } = await check.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('receiver_id', '=', account.receiver_id)
        .executeTakeFirstOrThrow();
      if (Number(count) !== PAYMENTS + 1) throw new Error(`restored ${count} payments, not ${PAYMENTS + 1}`);
      const { bytes } = await check.db
        .selectFrom('sandbox_snapshot_tables')
        .select((eb) => eb.fn.sum<number>(sql`length(content)`).as('bytes'))
        .where('snapshot_id', '=', snapshot!.snapshot_id)
        .executeTakeFirstOrThrow();
      return { database: kind, seeded, rows: snapshot!.rows, jsonMb: Number(bytes) / 1e6, snapshotMs, restoreMs };
    } finally {
      await check.close();
    }
  } finally {
    await server.stop();
    await receiver.close();
    await database.drop();
  }
}

const NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;

function row(m: Measured): string {
  const restore = median(m.restoreMs);
  const target = TARGET_MS[m.database];
  const verdict = restore < target ? 'met' : `**missed** by ${fmt.ms(restore - target)}`;
  return `| ${NAMES[m.database]} | ${m.rows.toLocaleString('en-US')} | ${m.jsonMb.toFixed(1)} MB | ${fmt.ms(median(m.snapshotMs))} | ${fmt.ms(Math.max(...m.snapshotMs))} | **${fmt.ms(restore)}** | ${fmt.ms(Math.max(...m.restoreMs))} | < ${target / 1000} s ${verdict} |`;
}

/** The machine's load average over the last minute, beside its cores: other work on it slows every figure. */
const load = () => `${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`;

export async function benchAccountSnapshots(): Promise<string> {
  const pgAdmin = process.env.BENCH_DATABASE_URL;
  const started = new Date();
  const loadBefore = load();
  const measured: Measured[] = [await measure('sqlite', '')];
  if (pgAdmin) measured.push(await measure('postgres', pgAdmin));
  return [
    '## Sandbox snapshots',
    '',
    `Measured ${started.toISOString()} (\`npm run bench account-snapshots\`); the machine's load average was ${loadBefore} at the start and ${load()} at the end. POST /sandbox/accounts/{id}/snapshots and .../snapshots/{snapshot}/restore on a \`quipu serve\` process per database (LOG_LEVEL=warn, defaults otherwise), for an account with ${PAYMENTS.toLocaleString('en-US')} payments (each with its notification and the attempt that delivered it) and ${SUBSCRIPTIONS.toLocaleString('en-US')} subscriptions (each with a line of history), and another account with ${OTHERS.toLocaleString('en-US')} payments in the same tables. The records are copies of a payment paid at DemoBank and notified and of a subscription, written straight into the database (\`bench/account-snapshots.ts\`). ${SNAPSHOTS} snapshots, then ${RESTORES} restores of the last one, one after another, each timed from the request to its answer; a restore deletes the account's records and inserts the snapshot's in one transaction. "JSON" is the snapshot's stored size.`,
    '',
    '| database | rows | JSON | snapshot p50 | snapshot max | restore p50 | restore max | target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...measured.map(row),
    '',
    `${measured.map((m) => `${NAMES[m.database]}: ${m.seeded.rows.toLocaleString('en-US')} rows written in ${m.seeded.seconds.toFixed(1)} s`).join('; ')}.`,
    '',
  ].join('\n');
}
