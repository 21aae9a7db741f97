// Two years of an operator's history written straight into a PostgreSQL database by the database
// itself (INSERT ... SELECT over generate_series): accounts, payments, the bank credits that paid
// them, their notifications and the notifications' attempts. Every row is a copy of one Quipu wrote
// in the same database (a template: a payment paid through recordCredits, its credit, its
// notification and the attempt the worker logged), with its own ids, account, dates and outcome, so
// every read Quipu makes of it works. The tables' secondary indexes are dropped for the load and
// built again after it, as an operator's restore would: building an index once is many times
// faster than keeping it up to date through millions of inserts.
import pg from 'pg';

const DAY = 86_400_000;
const SPAN_DAYS = 730;
/** Payments written per statement: a statement's progress shows, and no transaction holds millions of rows' undo. */
const CHUNK = 1_000_000;
const TABLES = ['payments', 'bank_credits', 'messages', 'message_attempts'] as const;

export interface Templates {
  /** The account the bench lists and reads (a tenth of the history is its). */
  receiverId: number;
  /** A payment paid through recordCredits, with its credit, its notification (delivered) and that notification's attempt. */
  paidPaymentId: string;
}

export interface History {
  payments: number;
  accounts: number;
  credits: number;
  messages: number;
  attempts: number;
  /** Seconds writing rows, and building the indexes again (and the vacuum after). */
  writeSeconds: number;
  indexSeconds: number;
  /** The database's size once loaded, in bytes. */
  bytes: number;
  /** Ids of the bench account's payments, for reads. */
  sampleIds: string[];
}

/** The columns of `table` in their order, but identity columns, which the database numbers. */
async function columnsOf(client: pg.Client, table: string): Promise<string[]> {
  const { rows } = await client.query<{ column_name: string }>(
    `select column_name from information_schema.columns
      where table_schema = 'public' and table_name = $1 and (column_default is null or column_default not like 'nextval(%')
      order by ordinal_position`,
    [table],
  );
  return rows.map((r) => r.column_name);
}

/**
 * INSERT INTO `table` SELECT, for each row of `from` (which names the template row `t`), the
 * template's columns but those of `set`, which are SQL expressions over the FROM clause.
 */
async function copyRows(client: pg.Client, table: string, from: string, set: Record<string, string>): Promise<number> {
  const columns = await columnsOf(client, table);
  const unknown = Object.keys(set).filter((c) => !columns.includes(c));
  if (unknown.length > 0) throw new Error(`${table} has no column ${unknown.join(', ')}`);
  const values = columns.map((c) => (c in set ? `${set[c]}` : `t.${c}`));
  const result = await client.query(`insert into ${table} (${columns.join(', ')}) select ${values.join(', ')} from ${from}`);
  return result.rowCount ?? 0;
}

const PAYER_COLUMNS = [
  'payer_name',
  'payer_email',
  'bank_id',
  'bank_name',
  'personal_identifier',
  'bank_account_number',
  'payment_method',
  'funds_source',
  'receipt_url',
];
const WORDS = ['Pedido', 'Orden', 'Suscripción', 'Factura', 'Curso', 'Entrada', 'Donación', 'Reserva'];
const ITEMS = ['zapatillas', 'polera', 'libro', 'café', 'mochila', 'audífonos', 'lámpara', 'silla', 'mesa', 'bicicleta'];
const textArray = (values: string[]) => `array[${values.map((v) => `'${v}'`).join(', ')}]`;

/**
 * `payments` payments over the two years before `now`, a tenth of them the bench account's and the
 * rest spread over `accounts` other accounts; four in five paid by a bank credit and notified (three
 * in ten of those after two failed attempts), the others left pending until they expired.
 */
export async function writeHistory(url: string, templates: Templates, payments: number, accounts: number, now: number): Promise<History> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const q = (text: string, values?: unknown[]) => client.query(text, values);
    // Rows that refer to each other are written consistent by construction: the foreign keys'
    // triggers would only look every row up again.
    await q(`set session_replication_role = replica`);
    await q(`set synchronous_commit = off`);
    await q(`set maintenance_work_mem = '512MB'`);
    const { rows: indexes } = await client.query<{ name: string; def: string }>(
      `select indexname as name, indexdef as def from pg_indexes
        where schemaname = 'public' and tablename = any($1) and indexname not in (select conname from pg_constraint)`,
      [TABLES],
    );
    for (const index of indexes) await q(`drop index ${index.name}`);

    const started = Date.now();
    const rid = templates.receiverId;
    const others = `(${rid} + 1 + g % ${accounts})`;
    // Other accounts: copies of the bench account with their own ids and API key hashes (none of them signs in).
    await copyRows(client, 'merchants', `merchants t, generate_series(1, ${accounts}) g where t.receiver_id = ${rid}`, {
      receiver_id: `${rid} + g`,
      name: `'Bench account ' || g`,
      api_key_hash: `encode(sha256(('years-of-data ' || g)::bytea), 'hex')`,
    });
    // One funds delivery per account carries its history's paid payments, so none of them waits in
    // payments_funds_due for the deliver-funds job.
    await q(
      `insert into fund_deliveries (delivery_id, receiver_id, currency, delivered_at, total, payment_count, created_at)
       select 'history-' || r, r, 'CLP', $1::bigint, 0, 0, $1::bigint from generate_series(${rid}, ${rid + accounts}) r`,
      [now - DAY],
    );

    const step = Math.floor((SPAN_DAYS * DAY) / payments);
    const createdAt = `(${now - DAY}::bigint - g::bigint * ${step})`;
    const paid = `(g % 5 <> 1)`;
    const whenPaid = (value: string) => `case when ${paid} then ${value} end`;
    for (let from = 1; from <= payments; from += CHUNK) {
      const to = Math.min(payments, from + CHUNK - 1);
      await copyRows(client, 'payments', `payments t, generate_series(${from}, ${to}) g where t.payment_id = '${templates.paidPaymentId}'`, {
        payment_id: `left(md5(g::text), 6) || lpad(to_hex(g), 6, '0')`,
        receiver_id: `case when g % 10 = 0 then ${rid} else ${others} end`,
        notification_token: `lpad(to_hex(${createdAt}), 12, '0') || lpad(to_hex(g), 8, '0') || left(md5('n' || g) || md5('t' || g), 44)`,
        status: `case when ${paid} then 'done' else 'pending' end`,
        status_detail: `case when ${paid} then 'normal' else 'pending' end`,
        subject: `(${textArray(WORDS)})[1 + g % 8] || ' ' || g || ' ' || (${textArray(ITEMS)})[1 + (g / 8) % 10]`,
        amount: `(1 + g % 500)::bigint * 10000000`,
        transaction_id: `'INV-' || g`,
        expires_at: `${createdAt} + ${DAY}`,
        conciliation_at: whenPaid(`${createdAt} + 60000`),
        funds_delivery_at: whenPaid(`${createdAt} + ${2 * DAY}`),
        fund_delivery_id: whenPaid(`'history-' || case when g % 10 = 0 then ${rid} else ${others} end`),
        ...Object.fromEntries(PAYER_COLUMNS.map((c) => [c, whenPaid(`t.${c}`)])),
        next_reminder_at: 'null',
        created_at: createdAt,
        updated_at: `${createdAt} + case when ${paid} then 60000 else 0 end`,
      });
      console.error(`years-of-data: ${to.toLocaleString('en-US')} payments written (${Math.round((Date.now() - started) / 1000)} s)`);
    }
    // The history's rows are those older than a day; the templates and the bench's own are newer.
    const history = `p.created_at < ${now - DAY / 2} and p.status = 'done'`;
    const credits = await copyRows(client, 'bank_credits', `payments p, bank_credits t where t.payment_id = '${templates.paidPaymentId}' and ${history}`, {
      credit_id: `md5('c' || p.payment_id)::uuid::text`,
      bank_reference: `'history-' || p.payment_id`,
      amount: 'p.amount',
      reference: 'p.payment_id',
      payment_id: 'p.payment_id',
      receiver_id: 'p.receiver_id',
      credited_at: 'p.conciliation_at - 30000',
      recorded_at: 'p.conciliation_at',
    });
    const retried = `(abs(hashtext(p.payment_id)) % 10 < 3)`;
    const messages = await copyRows(client, 'messages', `payments p, messages t where t.subject_id = '${templates.paidPaymentId}' and ${history}`, {
      message_id: `md5('m' || p.payment_id)::uuid::text`,
      receiver_id: 'p.receiver_id',
      subject_id: 'p.payment_id',
      body: `replace(t.body, t.subject_id, p.payment_id)`,
      status: `'delivered'`,
      attempts: `case when ${retried} then 3 else 1 end`,
      round_step: `case when ${retried} then 3 else 1 end`,
      round_started_at: 'p.conciliation_at',
      next_attempt_at: 'null',
      lease_id: 'null',
      locked_until: 'null',
      delivered_at: `p.conciliation_at + case when ${retried} then 330000 else 40 end`,
      created_at: 'p.conciliation_at',
      updated_at: `p.conciliation_at + case when ${retried} then 330000 else 40 end`,
    });
    console.error(`years-of-data: credits and messages written (${Math.round((Date.now() - started) / 1000)} s)`);
    const last = 'n = m.attempts';
    const attempts = await copyRows(
      client,
      'message_attempts',
      `messages m, generate_series(1, m.attempts) n, message_attempts t
        where t.message_id = (select message_id from messages where subject_id = '${templates.paidPaymentId}') and m.created_at < ${now - DAY / 2}`,
      {
        message_id: 'm.message_id',
        receiver_id: 'm.receiver_id',
        number: 'n',
        trigger: `case when n = 1 then 'first' else 'retry' end`,
        // The schedule's first steps: at once, after 30 s, after 5 min.
        due_at: `m.created_at + (array[0, 30000, 300000])[n]`,
        started_at: `m.created_at + (array[0, 30000, 300000])[n] + 5`,
        outcome: `case when ${last} then 'delivered' else 'failed' end`,
        status_code: `case when ${last} then t.status_code else 500 end`,
        error: `case when ${last} then t.error else 'HTTP 500' end`,
        response_excerpt: `case when ${last} then t.response_excerpt else 'error' end`,
      },
    );
    const writeSeconds = (Date.now() - started) / 1000;
    console.error(`years-of-data: attempts written (${Math.round(writeSeconds)} s); building indexes`);
    const indexed = Date.now();
    for (const index of indexes) await q(index.def);
    // As autovacuum leaves an old table: statistics taken, pages marked all-visible (index-only scans).
    await q(`vacuum (analyze) merchants, fund_deliveries, ${TABLES.join(', ')}`);
    const indexSeconds = (Date.now() - indexed) / 1000;
    const { rows: size } = await client.query<{ bytes: string }>('select pg_database_size(current_database()) as bytes');
    const { rows: sample } = await client.query<{ payment_id: string }>(
      `select payment_id from payments where receiver_id = $1 and created_at < $2 order by created_at desc limit 1000`,
      [rid, now - DAY],
    );
    return {
      payments,
      accounts,
      credits,
      messages,
      attempts,
      writeSeconds,
      indexSeconds,
      bytes: Number(size[0]!.bytes),
      sampleIds: sample.map((r) => r.payment_id),
    };
  } finally {
    await client.end();
  }
}
