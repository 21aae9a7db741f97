// The PostgreSQL yardstick: single-row inserts of a payment-sized row straight through `pg`, with
// the same number of concurrent clients as the HTTP load, for the same time.
import pg from 'pg';

export async function pgInsertRate(url: string, concurrency: number, seconds: number): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  await pool.query(
    'create table if not exists bench_rows (id text primary key, receiver_id bigint, subject text, amount bigint, currency text, body text, created_at bigint)',
  );
  const body = 'x'.repeat(400);
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      await pool.query('insert into bench_rows values ($1, $2, $3, $4, $5, $6, $7)', [
        `r${process.pid}-${next++}`,
        123456,
        'Order',
        10_000_000,
        'CLP',
        body,
        Date.now(),
      ]);
      done++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const rate = done / ((Date.now() - started) / 1000);
  await pool.query('drop table bench_rows');
  await pool.end();
  return rate;
}
