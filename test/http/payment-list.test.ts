// GET /quipu/v1/payments: an account's payments as GET /v3/payments/{id} shows them, newest first,
// filtered by status and creation dates, searched in subject, payment_id, transaction_id and payer
// email, paged by cursor without loss or repeat; never another account's; every bad parameter named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markPaid } from '../../src/app/mark-paid.js';
import { newNotificationToken, newPaymentId } from '../../src/domain/ids.js';
import { insertPayment } from '../../src/store/payments.js';
import type { PaymentRow } from '../../src/store/schema.js';
import { call, client, type JsonResponse } from '../helpers/http.js';
import { payByTransfer } from '../helpers/payments.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

interface Page {
  items: { payment_id: string; subject: string }[];
  next_cursor: string | null;
}

let server: TestServer;
let a: TestAccount;
let b: TestAccount;
/** Account a's payments, oldest first; `deleted` was deleted. */
const p: Record<'zapatillas' | 'nandu' | 'algodon' | 'mesa' | 'deleted' | 'other', string> = {} as never;

const api = (account: TestAccount) => client(server.baseUrl, account.api_key);
const list = (account: TestAccount, query = ''): Promise<JsonResponse<Page>> => api(account).get(`/quipu/v1/payments${query ? `?${query}` : ''}`);
const ids = async (account: TestAccount, query = '') => {
  const res = await list(account, query);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items.map((i) => i.payment_id);
};
const search = (account: TestAccount, q: string) => ids(account, `q=${encodeURIComponent(q)}`);

async function create(account: TestAccount, fields: Record<string, unknown>): Promise<string> {
  const res = await api(account).post('/v3/payments', { amount: 1000, currency: 'CLP', ...fields });
  expect(res.status).toBe(200);
  // Each a second after the one before: newest first is then creation order reversed.
  await api(account).post('/sandbox/clock', { advance: '1s' });
  return res.body.payment_id;
}

async function rowOf(paymentId: string): Promise<PaymentRow> {
  return server.ctx.db.selectFrom('payments').selectAll().where('payment_id', '=', paymentId).executeTakeFirstOrThrow();
}

/** A copy of a payment, for `account`, created at `at` (milliseconds): the API can only create payments now. */
async function copyAt(source: PaymentRow, account: TestAccount, at: number, changes: Partial<PaymentRow> = {}): Promise<string> {
  const paymentId = newPaymentId(server.ctx.random);
  const row = {
    ...source,
    payment_id: paymentId,
    receiver_id: account.receiver_id,
    notification_token: newNotificationToken(server.ctx.random, at),
    created_at: at,
    updated_at: at,
    ...changes,
  };
  await insertPayment(server.ctx.db, row);
  return paymentId;
}

/** Every page from the first, `limit` at a time, after each page running `between`. */
async function everyPage(account: TestAccount, query: string, between: () => Promise<unknown> = async () => undefined): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const res: JsonResponse<Page> = await list(account, `${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    pages.push(res.body.items.map((i) => i.payment_id));
    cursor = res.body.next_cursor;
    await between();
  } while (cursor !== null);
  return pages;
}

beforeAll(async () => {
  server = await startTestServer();
  a = await server.account();
  b = await server.account();
  p.zapatillas = await create(a, { subject: 'Zapatillas running', transaction_id: 'INV-0001' });
  await payByTransfer(server.ctx, a.merchant, p.zapatillas, { payerEmail: 'Ana.Perez@Example.com' });
  p.nandu = await create(a, { subject: 'Pedido Ñandú 42', transaction_id: 'INV-0002' });
  p.algodon = await create(a, { subject: `100% algodón_polera "oferta" it's` });
  await markPaid(server.ctx, a.merchant, p.algodon);
  p.mesa = await create(a, { subject: 'Mesa [roble] * ? \\ Ñu', transaction_id: 'ORD-77' });
  p.deleted = await create(a, { subject: 'Zapatillas borradas' });
  expect((await api(a).delete(`/v3/payments/${p.deleted}`)).status).toBe(200);
  p.other = await create(b, { subject: 'Zapatillas running', transaction_id: 'INV-0001' });
});
afterAll(async () => {
  await server?.close();
});

describe('GET /quipu/v1/payments', () => {
  it("lists the account's live payments newest first, each exactly as GET /v3/payments/{id} shows it", async () => {
    const res = await list(a);
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.items.map((i) => i.payment_id)).toEqual([p.mesa, p.algodon, p.nandu, p.zapatillas]);
    for (const item of res.body.items) expect(item).toEqual((await api(a).get(`/v3/payments/${item.payment_id}`)).body);
    expect(await ids(b)).toEqual([p.other]);
  });

  it('filters by status and status_detail', async () => {
    expect(await ids(a, 'status=done')).toEqual([p.algodon, p.zapatillas]);
    expect(await ids(a, 'status_detail=marked-paid-by-receiver')).toEqual([p.algodon]);
    expect(await ids(a, 'status=done&status_detail=normal')).toEqual([p.zapatillas]);
    expect(await ids(a, 'status=pending')).toEqual([p.mesa, p.nandu]);
    expect(await ids(a, 'status=verifying')).toEqual([]);
  });

  it('filters by creation time: from inclusive, to exclusive', async () => {
    const at = async (id: string) => new Date((await rowOf(id)).created_at).toISOString();
    expect(await ids(a, `from=${await at(p.nandu)}`)).toEqual([p.mesa, p.algodon, p.nandu]);
    expect(await ids(a, `to=${await at(p.algodon)}`)).toEqual([p.nandu, p.zapatillas]);
    expect(await ids(a, `from=${await at(p.nandu)}&to=${await at(p.algodon)}`)).toEqual([p.nandu]);
  });

  it('reads a date as the day in Chile, the day clocks go back included', async () => {
    const c = await server.account();
    const source = await rowOf(p.nandu);
    // Saturday 2024-04-06 starts at 03:00 UTC (UTC-3); its last hour repeats, so Sunday starts at 04:00 UTC (UTC-4).
    const [before, first, last, sunday] = ['2024-04-06T02:59:59.999Z', '2024-04-06T03:00:00.000Z', '2024-04-07T03:59:59.999Z', '2024-04-07T04:00:00.000Z'];
    const copies = [];
    for (const at of [before, first, last, sunday]) copies.push(await copyAt(source, c, Date.parse(at!)));
    expect(await ids(c, 'from=2024-04-06&to=2024-04-07')).toEqual([copies[2], copies[1]]);
    expect(await ids(c, 'to=2024-04-06')).toEqual([copies[0]]);
    expect(await ids(c, 'from=2024-04-07')).toEqual([copies[3]]);
  });

  it('searches subject, payment_id, transaction_id and payer email anywhere in them, whatever the case', async () => {
    expect(await search(a, 'zapatillas RUN')).toEqual([p.zapatillas]);
    expect(await search(a, 'ñANDÚ')).toEqual([p.nandu]);
    expect(await search(a, p.algodon)).toEqual([p.algodon]);
    expect(await search(a, p.algodon.slice(0, 8).toUpperCase())).toEqual([p.algodon]);
    expect(await search(a, 'inv-000')).toEqual([p.nandu, p.zapatillas]);
    expect(await search(a, 'ORD-7')).toEqual([p.mesa]);
    expect(await search(a, 'ana.perez@example')).toEqual([p.zapatillas]);
    expect(await search(a, 'nothing like it')).toEqual([]);
    // Searched alone, never across two fields: "running" ends the subject, "INV" starts the transaction_id.
    expect(await search(a, 'running INV')).toEqual([]);
  });

  it("takes a search's %, _, quotes, backslashes and wildcards literally", async () => {
    expect(await search(a, '%')).toEqual([p.algodon]);
    expect(await search(a, '_')).toEqual([p.algodon]);
    expect(await search(a, '0% a')).toEqual([p.algodon]);
    expect(await search(a, `"oferta" it's`)).toEqual([p.algodon]);
    expect(await search(a, '\\')).toEqual([p.mesa]);
    expect(await search(a, '*')).toEqual([p.mesa]);
    expect(await search(a, '?')).toEqual([p.mesa]);
    expect(await search(a, '[roble]')).toEqual([p.mesa]);
    // Letters beyond ASCII with wildcards: both kinds of matching at once.
    expect(await search(a, '[ROBLE] * ? \\ ñU')).toEqual([p.mesa]);
    expect(await search(a, '? \\ ñ')).toEqual([p.mesa]);
    expect(await search(a, '* ñ')).toEqual([]);
    expect(await search(a, 'o_p')).toEqual([]);
  });

  it("never shows another account's payments, nor a deleted one", async () => {
    expect(await search(a, p.other)).toEqual([]);
    expect(await search(b, p.zapatillas)).toEqual([]);
    expect(await search(b, 'zapatillas')).toEqual([p.other]);
    expect(await search(a, p.deleted)).toEqual([]);
    expect(await search(a, 'borradas')).toEqual([]);
  });

  it('pages through every payment once, ties in the same millisecond included, while new ones are created', async () => {
    const d = await server.account();
    const source = await rowOf(p.nandu);
    const at = Date.parse('2024-05-01T12:00:00Z');
    const copies: string[] = [];
    for (const [i, offset] of [0, 1, 1, 1, 1, 2, 3].entries())
      copies.push(
        await copyAt(source, d, at + offset, { subject: `Pedido ${i}`, status: i % 2 ? 'done' : 'pending', status_detail: i % 2 ? 'normal' : 'pending' }),
      );
    const all = await ids(d, 'limit=100');
    expect([...all].sort()).toEqual([...copies].sort());

    const pages = await everyPage(d, 'limit=2', () => create(d, { subject: 'Pedido nuevo' }));
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2, 1]);
    expect(pages.flat()).toEqual(all);
    // Those created meanwhile are newer than every cursor given: on a first page only.
    expect((await ids(d, 'limit=100')).length).toBe(7 + pages.length);

    const filtered = await everyPage(d, 'limit=1&status=done&to=2024-05-02');
    expect(filtered.flat()).toEqual(all.filter((id) => [copies[1], copies[3], copies[5]].includes(id)));
    expect(await everyPage(d, 'limit=1&q=pedido&from=2024-05-01&to=2024-05-02')).toEqual(all.map((id) => [id]));
  });

  it('answers 50 payments unless asked, and at most 100', async () => {
    const e = await server.account();
    const source = await rowOf(p.nandu);
    for (let i = 0; i < 101; i++) await copyAt(source, e, Date.parse('2024-06-01T00:00:00Z') + i);
    const first = await list(e);
    expect(first.body.items).toHaveLength(50);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const hundred = await list(e, 'limit=100');
    expect(hundred.body.items).toHaveLength(100);
    const rest = await list(e, `limit=100&cursor=${hundred.body.next_cursor}`);
    expect(rest.body.items).toHaveLength(1);
    expect(rest.body.next_cursor).toBeNull();
    const one = await list(e, 'limit=1');
    expect(one.body.items).toHaveLength(1);
    for (const limit of ['0', '101']) {
      const res = await api(e).get(`/quipu/v1/payments?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 400, errors: [{ field: 'limit', message: 'must be a whole number from 1 to 100' }] });
    }
  });

  it('refuses bad parameters with a 400 naming each one', async () => {
    const refused = async (query: string) => {
      const res = await api(a).get(`/quipu/v1/payments?${query}`);
      expect(res.status).toBe(400);
      return res.body.errors as { field: string; message: string }[];
    };
    const all = await refused(`status=paid&status_detail=x&from=tomorrow&to=2024-13-01&limit=many&cursor=abc&q=${'x'.repeat(101)}`);
    expect(all.map((e) => e.field)).toEqual(['status', 'status_detail', 'from', 'to', 'q', 'cursor', 'limit']);
    expect(await refused('page=2')).toEqual([{ field: 'page', message: 'is not a known field' }]);
    expect((await refused('status=done&status=pending')).map((e) => e.field)).toEqual(['status']);
    expect(await refused('from=2024-05-02&to=2024-05-01')).toEqual([{ field: 'to', message: 'must be after from' }]);
  });

  it('wants the account credentials of the other APIs', async () => {
    const res = await call(server.baseUrl, 'GET', '/quipu/v1/payments');
    expect(res.status).toBe(401);
  });
});
