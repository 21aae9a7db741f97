// GET /v3/payments/{id} from one server process while another changes the payment: once a change
// has been answered, every read sent after that answer shows it, also while the reading process is
// busy with many reads that it answers together (one query per turn on PostgreSQL, answers from
// memory on SQLite: docs/architecture.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { payByTransfer } from '../helpers/payments.js';
import { freePort, type ServerProcess, startServerProcess, waitForHttp } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let writer: TestServer;
let reader: ServerProcess;
let readerUrl: string;
let account: TestAccount;

beforeAll(async () => {
  writer = await startTestServer();
  const port = await freePort();
  readerUrl = `http://127.0.0.1:${port}`;
  reader = startServerProcess({
    DATABASE_URL: writer.database.url,
    DATA_DIR: writer.database.dataDir,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    DEMO_ACCOUNT: 'false',
    RUN_WORKER: 'false',
  });
  await waitForHttp(`${readerUrl}/readyz`);
  account = await writer.account();
});
afterAll(async () => {
  await reader?.stop();
  await writer?.close();
});

type State = 'pending' | 'done' | 'deleted';

/** What a read must show: the last change answered before the read was sent. */
interface Answered {
  state: State;
  at: number;
}

const seen = (status: number, body: { status?: string }): State => (status === 404 ? 'deleted' : (body.status as State));

describe('reads in one process after writes in another', () => {
  it('never show a payment older than the last change answered before they were sent', async () => {
    const write = client(writer.baseUrl, account.api_key);
    const read = client(readerUrl, account.api_key);
    const history = new Map<string, Answered[]>();
    const answered = (id: string, state: State) => history.get(id)!.push({ state, at: performance.now() });
    const mustShow = (id: string, sentAt: number) =>
      history
        .get(id)!
        .filter((a) => a.at < sentAt)
        .at(-1)!.state;

    let stop = false;
    const observed: { id: string; sentAt: number; got: State }[] = [];
    // Readers that keep the reading process busy with reads of every payment so far, answered together.
    const background = Array.from({ length: 12 }, async () => {
      while (!stop) {
        const ids = [...history.keys()];
        if (ids.length === 0) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        const sentAt = performance.now();
        const { status, body } = await read.get(`/v3/payments/${id}`);
        observed.push({ id, sentAt, got: seen(status, body) });
      }
    });

    for (let i = 0; i < 25; i++) {
      const created = await write.post('/v3/payments', { amount: 1000 + i, currency: 'CLP', subject: `Read after write ${i}` });
      expect(created.status).toBe(200);
      const id = created.body.payment_id as string;
      history.set(id, [{ state: 'pending', at: performance.now() }]);
      const first = await read.get(`/v3/payments/${id}`);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ payment_id: id, status: 'pending', amount: 1000 + i });

      if (i % 2 === 0) {
        await payByTransfer(writer.ctx, account.merchant, id);
        answered(id, 'done');
        expect((await read.get(`/v3/payments/${id}`)).body).toMatchObject({ status: 'done', bank_id: 'Bawdf' });
      } else {
        expect((await write.delete(`/v3/payments/${id}`)).status).toBe(200);
        answered(id, 'deleted');
        expect((await read.get(`/v3/payments/${id}`)).status).toBe(404);
      }
    }
    stop = true;
    await Promise.all(background);
    expect(observed.length).toBeGreaterThan(100);
    // A change answered while a read was in flight may or may not show in it; an older state never does.
    const mismatches = observed.filter(
      ({ id, sentAt, got }) => got !== mustShow(id, sentAt) && !history.get(id)!.some((a) => a.at >= sentAt && a.state === got),
    );
    expect(mismatches).toEqual([]);
  });

  it("answers each account's reads of one turn with its own payments only", async () => {
    const other = await writer.account();
    const mine = (await client(writer.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Mine' })).body
      .payment_id as string;
    const theirs = (await client(writer.baseUrl, other.api_key).post('/v3/payments', { amount: 2000, currency: 'CLP', subject: 'Theirs' })).body
      .payment_id as string;
    const reads = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const [key, id] = i % 2 === 0 ? [account.api_key, theirs] : [other.api_key, mine];
        return client(readerUrl, key).get(`/v3/payments/${id}`);
      }),
    );
    expect(reads.map((r) => r.status)).toEqual(Array(20).fill(404));
    const own = await Promise.all([
      client(readerUrl, account.api_key).get(`/v3/payments/${mine}`),
      client(readerUrl, other.api_key).get(`/v3/payments/${theirs}`),
    ]);
    expect(own.map((r) => [r.status, r.body.subject])).toEqual([
      [200, 'Mine'],
      [200, 'Theirs'],
    ]);
  });
});
