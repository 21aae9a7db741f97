// Reconciliation through the operator API and from the credits a bank reports: credits matched
// exactly on account, amount and reference, within what the merchant fixed for the payment;
// everything else kept and listed, a page at a time; a movement counted once. Also the merchant's
// mark-paid extension and the DemoBank sandbox's credentials.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { collectBankCredits } from '../../src/app/collect-bank-credits.js';
import type { BankCredit } from '../../src/domain/bank-credit.js';
import { call, client } from '../helpers/http.js';
import { runEveryJob } from '../helpers/jobs.js';
import { countRows } from '../helpers/payments.js';
import { ScriptedBank } from '../helpers/scripted-bank.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const TOKEN = 'operator-token-for-the-reconciliation-tests';
let server: TestServer;
let account: TestAccount;

beforeAll(async () => {
  server = await startTestServer({ OPERATOR_TOKEN: TOKEN });
  account = await server.account({ notifyUrl: 'http://127.0.0.1:9/hooks' });
});
afterAll(async () => server?.close());

const api = (key = account.api_key) => client(server.baseUrl, key);
const operator = (method: string, path: string, body?: unknown, token = TOKEN) =>
  call(server.baseUrl, method, path, { body, headers: { authorization: `Bearer ${token}` } });
const collectAccount = () => account.merchant.collectAccounts[0]!;
let sequence = 0;

async function createPayment(fields: Record<string, unknown> = {}): Promise<string> {
  const created = await api().post('/v3/payments', { amount: 12345, currency: 'CLP', subject: 'Invoice', ...fields });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

function credit(paymentId: string | undefined, fields: Record<string, unknown> = {}) {
  return {
    bank_reference: `mov-${++sequence}`,
    account: collectAccount(),
    amount: 12345,
    currency: 'CLP',
    ...(paymentId ? { reference: paymentId } : {}),
    credited_at: server.ctx.clock.now().toISOString(),
    payer_bank_id: 'LrNcd',
    payer_name: 'María Soto',
    payer_email: 'maria@example.cl',
    payer_personal_identifier: '12.345.678-5',
    payer_account_number: '0012345678',
    ...fields,
  };
}

describe('operator credits', () => {
  it('needs the operator token', async () => {
    expect((await call(server.baseUrl, 'GET', '/operator/v1/credits')).status).toBe(401);
    expect((await operator('GET', '/operator/v1/credits', undefined, 'wrong')).status).toBe(401);
    expect((await call(server.baseUrl, 'GET', '/operator/v1/credits', { apiKey: account.api_key })).status).toBe(401);
    const closed = await startTestServer();
    try {
      const refused = await call(closed.baseUrl, 'GET', '/operator/v1/credits', { headers: { authorization: 'Bearer anything' } });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('OPERATOR_TOKEN');
    } finally {
      await closed.close();
    }
  });

  it('reconciles a normal transfer: done, payer fields filled, receipt, and the notification written', async () => {
    const id = await createPayment({ payer_email: 'buyer@example.cl' });
    const fed = await operator('POST', '/operator/v1/credits', { credits: [credit(id, { payer_email: undefined })] });
    expect(fed.status).toBe(200);
    expect(fed.body).toMatchObject({ matched: 1, unmatched: 0, duplicates: 0, results: [{ status: 'matched', payment_id: id }] });
    const paid = (await api().get(`/v3/payments/${id}`)).body;
    expect(paid).toMatchObject({
      status: 'done',
      status_detail: 'normal',
      bank: 'Banco BCI',
      bank_id: 'LrNcd',
      payer_name: 'María Soto',
      payer_email: 'buyer@example.cl',
      personal_identifier: '12.345.678-5',
      bank_account_number: '0012345678',
      payment_method: 'regular_transfer',
      funds_source: '',
      out_of_date_conciliation: false,
      receipt_url: expect.stringMatching(new RegExp(`^${server.baseUrl}/payment/receipt/CPKH-\\d{10}-${id}\\.pdf$`)),
    });
    const receipt = await fetch(paid.receipt_url);
    expect(receipt.status).toBe(200);
    expect(receipt.headers.get('content-type')).toBe('application/pdf');
    const notifications = await server.ctx.db.selectFrom('notifications').select(['payment_id', 'url']).where('payment_id', '=', id).execute();
    expect(notifications).toEqual([{ payment_id: id, url: 'http://127.0.0.1:9/hooks' }]);
  });

  it('keeps and lists what does not match exactly, with the reason, and leaves the payments alone', async () => {
    const id = await createPayment();
    const unmatched = [
      credit(id, { amount: 12344 }),
      credit(id, { account: 'another-account' }),
      credit(id, { currency: 'USD', amount: 12345 }),
      credit('nosuchpaymnt'),
      credit(undefined),
    ];
    const fed = await operator('POST', '/operator/v1/credits', { credits: unmatched });
    expect(fed.body).toMatchObject({ matched: 0, unmatched: 5, duplicates: 0 });
    expect((await api().get(`/v3/payments/${id}`)).body.status).toBe('pending');
    const listed = await operator('GET', '/operator/v1/credits?status=unmatched');
    const mine = listed.body.credits.filter((c: { bank_reference: string }) => unmatched.some((u) => u.bank_reference === c.bank_reference));
    expect(mine).toHaveLength(5);
    const reasons = Object.fromEntries(mine.map((c: { bank_reference: string; reason: string }) => [c.bank_reference, c.reason]));
    expect(reasons[unmatched[0]!.bank_reference]).toContain('amount differs');
    expect(reasons[unmatched[1]!.bank_reference]).toContain('another account');
    expect(reasons[unmatched[2]!.bank_reference]).toContain('in CLP, the credit in USD');
    expect(reasons[unmatched[3]!.bank_reference]).toContain('no payment has the reference');
    expect(reasons[unmatched[4]!.bank_reference]).toContain('no payment reference');
    expect(mine.every((c: { status: string; payment_id: null }) => c.status === 'unmatched' && c.payment_id === null)).toBe(true);
    const matched = await operator('GET', '/operator/v1/credits?status=matched');
    expect(matched.body.credits.every((c: { status: string }) => c.status === 'matched')).toBe(true);
  });

  it('matches the reference as written: another case or surrounding spaces name no payment', async () => {
    const id = await createPayment();
    const fed = await operator('POST', '/operator/v1/credits', { credits: [credit(id.toUpperCase()), credit(` ${id} `), credit(`${id}\n`)] });
    expect(fed.body).toMatchObject({ matched: 0, unmatched: 3 });
    expect(fed.body.results.map((r: { reason: string }) => r.reason)).toEqual([
      `no payment has the reference ${id.toUpperCase()}`,
      `no payment has the reference  ${id} `,
      `no payment has the reference ${id}\n`,
    ]);
    expect((await api().get(`/v3/payments/${id}`)).body.status).toBe('pending');
    expect((await operator('POST', '/operator/v1/credits', { credits: [credit(id)] })).body.matched).toBe(1);
  });

  it('matches a credit to the collection account payers are shown, named by its number', async () => {
    const id = await createPayment();
    const fed = await operator('POST', '/operator/v1/credits', { credits: [credit(id, { account: server.config.collectionAccount.number })] });
    expect(fed.body).toMatchObject({ matched: 1, results: [{ status: 'matched', payment_id: id }] });
  });

  it('keeps a credit that breaks what the merchant fixed unmatched, says why, and lists it', async () => {
    const fixedPayer = await createPayment({ fixed_payer_personal_identifier: '11.111.111-1' });
    const fixedBank = await createPayment({ bank_id: 'dfFbF' });
    const simplifiedOnly = await createPayment({ mandatory_payment_method: 'SIMPLIFIED_TRANSFER' });
    const broken = [credit(fixedPayer), credit(fixedPayer, { payer_personal_identifier: undefined }), credit(fixedBank), credit(simplifiedOnly)];
    const fed = await operator('POST', '/operator/v1/credits', { credits: broken });
    expect(fed.body).toMatchObject({ matched: 0, unmatched: 4 });
    expect(fed.body.results.map((r: { reason: string }) => r.reason)).toEqual([
      `payment ${fixedPayer} may only be paid by 11.111.111-1, the credit comes from 12.345.678-5`,
      `payment ${fixedPayer} may only be paid by 11.111.111-1, the credit comes from an unnamed payer`,
      `payment ${fixedBank} may only be paid from bank dfFbF, the credit comes from LrNcd`,
      `payment ${simplifiedOnly} may only be paid by simplified_transfer, the credit is a regular_transfer`,
    ]);
    const listed = await operator('GET', `/operator/v1/credits?status=unmatched&limit=${broken.length}`);
    const pairs = (list: [string, string][]) => list.map((pair) => pair.join(': ')).sort();
    expect(pairs(listed.body.credits.map((c: { bank_reference: string; reason: string }) => [c.bank_reference, c.reason]))).toEqual(
      pairs(broken.map((b, i) => [b.bank_reference, fed.body.results[i].reason])),
    );
    for (const id of [fixedPayer, fixedBank, simplifiedOnly]) expect((await api().get(`/v3/payments/${id}`)).body.status).toBe('pending');

    const allowed = [
      credit(fixedPayer, { payer_personal_identifier: '111111111' }),
      credit(fixedBank, { payer_bank_id: 'dfFbF' }),
      credit(simplifiedOnly, { payment_method: 'simplified_transfer' }),
    ];
    expect((await operator('POST', '/operator/v1/credits', { credits: allowed })).body).toMatchObject({ matched: 3, unmatched: 0 });
  });

  it('counts a movement once however often it is reported, and a second credit for a paid payment stays unmatched', async () => {
    const id = await createPayment();
    const first = credit(id);
    const once = await operator('POST', '/operator/v1/credits', { credits: [first] });
    expect(once.body.matched).toBe(1);
    const again = await operator('POST', '/operator/v1/credits', { credits: [first, credit(id)] });
    expect(again.body).toMatchObject({ matched: 0, duplicates: 1, unmatched: 1 });
    expect(again.body.results[1].reason).toContain('cannot be reconciled');
    const rows = await server.ctx.db.selectFrom('bank_credits').select('status').where('reference', '=', id).execute();
    expect(rows.map((r) => r.status).sort()).toEqual(['matched', 'unmatched']);
    expect(await server.ctx.db.selectFrom('notifications').select('payment_id').where('payment_id', '=', id).execute()).toHaveLength(1);
  });

  it('within one statement: a movement reported twice counts once, a second credit for the same payment stays unmatched, each payment is notified once', async () => {
    const [a, b, c] = [await createPayment(), await createPayment(), await createPayment()];
    const twice = credit(a);
    const fed = await operator('POST', '/operator/v1/credits', { credits: [credit(c), twice, credit(b), twice, credit(b), credit('nosuchpaymnt')] });
    expect(fed.status).toBe(200);
    expect(fed.body).toMatchObject({ matched: 3, duplicates: 1, unmatched: 2 });
    expect(fed.body.results.map((r: { status: string }) => r.status)).toEqual(['matched', 'matched', 'matched', 'duplicate', 'unmatched', 'unmatched']);
    expect(fed.body.results[4].reason).toContain('cannot be reconciled');
    for (const id of [a, b, c]) {
      expect((await api().get(`/v3/payments/${id}`)).body.status).toBe('done');
      expect(await server.ctx.db.selectFrom('notifications').select('payment_id').where('payment_id', '=', id).execute()).toHaveLength(1);
    }
    const rows = await server.ctx.db.selectFrom('bank_credits').select(['status', 'payment_id', 'receiver_id']).where('reference', 'in', [a, b, c]).execute();
    expect(
      rows
        .filter((r) => r.status === 'matched')
        .map((r) => [r.payment_id, Number(r.receiver_id)])
        .sort(),
    ).toEqual([a, b, c].sort().map((id) => [id, account.receiver_id]));
  });

  it('statements imported at the same time, overlapping in either order, record each movement once and reconcile each payment once', async () => {
    const ids = await Promise.all(Array.from({ length: 30 }, () => createPayment()));
    const statement = ids.map((id) => credit(id));
    const imports = await Promise.all(
      [statement, [...statement].reverse(), statement.slice(10), [...statement].reverse()].map((credits) =>
        operator('POST', '/operator/v1/credits', { credits }),
      ),
    );
    expect(imports.map((i) => i.status)).toEqual([200, 200, 200, 200]);
    expect(imports.reduce((n, i) => n + i.body.matched, 0)).toBe(30);
    expect(imports.reduce((n, i) => n + i.body.unmatched, 0)).toBe(0);
    const counted = await server.ctx.db.selectFrom('bank_credits').select('bank_reference').where('reference', 'in', ids).execute();
    expect(counted).toHaveLength(30);
    const notified = await server.ctx.db.selectFrom('notifications').select('payment_id').where('payment_id', 'in', ids).execute();
    expect(notified.map((n) => n.payment_id).sort()).toEqual([...ids].sort());
  });

  it('refuses a bad batch whole, naming each field, and records nothing', async () => {
    const id = await createPayment();
    const before = await countRows(server.ctx.db, 'bank_credits');
    const malformed = await operator('POST', '/operator/v1/credits', { credits: [credit(id), credit(id, { credited_at: 'yesterday', payer_email: 'nope' })] });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors.map((e: { field: string }) => e.field)).toEqual(['credits.1.credited_at', 'credits.1.payer_email']);
    const decimals = await operator('POST', '/operator/v1/credits', { credits: [credit(id), credit(id, { amount: 10.5 }), credit(id, { amount: 0 })] });
    expect(decimals.status).toBe(400);
    expect(decimals.body.errors).toEqual([
      { field: 'credits.1.amount', message: 'must not have decimals in this currency' },
      { field: 'credits.2.amount', message: 'must be greater than zero' },
    ]);
    const missing = await operator('POST', '/operator/v1/credits', {
      credits: [{ account: collectAccount(), amount: 1, currency: 'CLP', credited_at: new Date().toISOString() }],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual(expect.arrayContaining([{ field: 'credits.0.bank_reference', message: 'is required' }]));
    expect((await operator('POST', '/operator/v1/credits', { credits: [] })).status).toBe(400);
    expect(await countRows(server.ctx.db, 'bank_credits')).toBe(before);
    expect((await api().get(`/v3/payments/${id}`)).body.status).toBe('pending');
  });
});

describe('listing credits', () => {
  type Listed = { bank_reference: string; credit_id: string; recorded_at: string };
  const list = async (query: string) => {
    const page = await operator('GET', `/operator/v1/credits?${query}`);
    expect(page.status).toBe(200);
    return page.body as { credits: Listed[]; next_cursor: string | null };
  };
  const day = (d: number) => `2026-01-0${d}T12:00:00-03:00`;

  it('pages through every credit, newest first, by cursor, filtered by account, status and date', async () => {
    const credits = [1, 2, 3, 4, 5].map((d) => credit(undefined, { account: 'paging-account', credited_at: day(d) }));
    expect((await operator('POST', '/operator/v1/credits', { credits })).body.unmatched).toBe(5);

    const listed: Listed[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(`account=paging-account&status=unmatched&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      listed.push(...page.credits);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(listed.map((c) => c.bank_reference).sort()).toEqual(credits.map((c) => c.bank_reference).sort());
    const newerFirst = (a: Listed, b: Listed) => a.recorded_at > b.recorded_at || (a.recorded_at === b.recorded_at && a.credit_id > b.credit_id);
    expect(listed.slice(1).every((c, i) => newerFirst(listed[i]!, c))).toBe(true);

    expect((await list('account=paging-account&status=matched')).credits).toEqual([]);
    const middle = await list(`account=paging-account&credited_from=${encodeURIComponent(day(2))}&credited_to=${encodeURIComponent(day(4))}`);
    expect(middle.credits.map((c) => c.bank_reference).sort()).toEqual([credits[1]!.bank_reference, credits[2]!.bank_reference]);
    expect(middle.next_cursor).toBeNull();
  });

  it('refuses a cursor it did not give and dates without a zone, naming them', async () => {
    const bad = await operator('GET', '/operator/v1/credits?cursor=not-a-cursor&credited_from=2026-01-01');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['credited_from', 'cursor']);
    expect((await operator('GET', '/operator/v1/credits?limit=1001')).status).toBe(400);
  });
});

describe('credits a bank reports', () => {
  const BANK = 'KpWeZ';
  const booked = (reference: string | null, bankReference: string): BankCredit => ({
    bankReference,
    account: collectAccount(),
    amount: 12345 * 10_000,
    currency: 'CLP',
    reference,
    creditedAt: server.ctx.clock.now(),
    payerBankId: 'LrNcd',
    payerName: 'María Soto',
    payerEmail: null,
    payerPersonalIdentifier: '12.345.678-5',
    payerAccountNumber: '0012345678',
    paymentMethod: null,
    fundsSource: null,
  });

  it("are collected by housekeeping and reconciled as an operator's are, asked for after the last one, and counted once", async () => {
    const bank = new ScriptedBank(server.ctx.banks, BANK);
    onTestFinished(() => bank.unregister());
    const paid = await createPayment();
    bank.booked.push(booked(paid, 'itau-1'), booked(null, 'itau-2'));

    await runEveryJob(server.ctx);
    expect((await api().get(`/v3/payments/${paid}`)).body).toMatchObject({
      status: 'done',
      status_detail: 'normal',
      bank_id: 'LrNcd',
      payer_name: 'María Soto',
    });
    expect(await server.ctx.db.selectFrom('notifications').select('payment_id').where('payment_id', '=', paid).execute()).toHaveLength(1);
    const unmatched = (await operator('GET', `/operator/v1/credits?status=unmatched&account=${collectAccount()}`)).body.credits;
    expect(unmatched.find((c: { bank_reference: string }) => c.bank_reference === 'itau-2')).toMatchObject({
      source: BANK,
      reason: 'the credit carries no payment reference',
    });

    const later = await createPayment();
    bank.booked.push(booked(later, 'itau-3'));
    expect(await collectBankCredits(server.ctx)).toBe(1);
    expect((await api().get(`/v3/payments/${later}`)).body.status).toBe('done');
    expect(bank.cursorsAsked).toEqual([null, '2', '2', '3']);
    const recorded = await server.ctx.db.selectFrom('bank_credits').select('bank_reference').where('source', '=', BANK).execute();
    expect(recorded.map((r) => r.bank_reference).sort()).toEqual(['itau-1', 'itau-2', 'itau-3']);
  });
});

describe('mark-paid extension', () => {
  it('marks a pending payment paid by the receiver, once, and only the owner may', async () => {
    const id = await createPayment();
    const stranger = await server.account();
    expect((await api(stranger.api_key).post(`/quipu/v1/payments/${id}/mark-paid`)).status).toBe(404);
    expect((await call(server.baseUrl, 'POST', `/quipu/v1/payments/${id}/mark-paid`)).status).toBe(401);
    const marked = await api().post(`/quipu/v1/payments/${id}/mark-paid`);
    expect(marked.status).toBe(200);
    expect((await api().get(`/v3/payments/${id}`)).body).toMatchObject({ status: 'done', status_detail: 'marked-paid-by-receiver', receipt_url: '' });
    const twice = await api().post(`/quipu/v1/payments/${id}/mark-paid`);
    expect(twice.status).toBe(400);
    expect(twice.body.message).toContain('done/marked-paid-by-receiver');
    expect(await server.ctx.db.selectFrom('notifications').select('payment_id').where('payment_id', '=', id).execute()).toHaveLength(0);
  });
});

describe('DemoBank sandbox', () => {
  it('is for developer accounts and needs an uncertain transfer', async () => {
    const id = await createPayment();
    const refused = await api().post(`/sandbox/demobank/payments/${id}/confirm`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('no transfer waiting');
    expect((await api().post(`/sandbox/demobank/payments/${id}/maybe`)).status).toBe(400);
    const production = await server.account({ developer: false });
    expect((await api(production.api_key).post(`/sandbox/demobank/payments/${id}/confirm`)).status).toBe(403);
    expect((await api().get(`/v3/payments/${id}`)).body.status).toBe('pending');
  });
});
