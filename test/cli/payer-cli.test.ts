// `quipu reconcile`, `quipu credits list`, `quipu payments mark-paid` and `quipu demobank` as real
// processes on the database of a running test server.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { client } from '../helpers/http.js';
import { countRows } from '../helpers/payments.js';
import { csrfOf, loginToDemoBank, PayerSession, startDemoBankAttempt, tabAtCoordinates } from '../helpers/payer-session.js';
import { quipu } from '../helpers/process.js';
import { ANY_PAYER, ScriptedBank } from '../helpers/scripted-bank.js';
import { useTestServer } from '../helpers/server.js';

let env: Record<string, string>;

const setup = useTestServer();
beforeAll(() => {
  env = { DATABASE_URL: setup.server.database.url, DATA_DIR: setup.server.database.dataDir, LOG_LEVEL: 'warn' };
});

const api = () => client(setup.server.baseUrl, setup.account.api_key);
const statusOf = async (id: string) => {
  const { status, status_detail } = (await api().get(`/v3/payments/${id}`)).body;
  return `${status}/${status_detail}`;
};

async function createPayment(amount = 2500): Promise<string> {
  const created = await api().post('/v3/payments', { amount, currency: 'CLP', subject: 'Statement test' });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

function statementFile(name: string, content: string): string {
  const file = path.join(setup.server.database.dataDir, name);
  fs.writeFileSync(file, content);
  return file;
}

// Each command is a process of its own: generous time for a loaded machine.
const PROCESSES = { timeout: 120_000 };

describe('quipu reconcile', PROCESSES, () => {
  it('reconciles a CSV statement, keeps what does not match, and counts nothing twice on re-import', async () => {
    const paid = await createPayment();
    const other = await createPayment();
    const collect = setup.account.merchant.collectAccounts[0]!;
    const now = setup.server.ctx.clock.now().toISOString();
    const file = statementFile(
      'statement.csv',
      [
        'bank_reference,account,amount,currency,reference,credited_at,payer_bank_id,payer_name,payer_personal_identifier',
        `csv-1,${collect},2500,CLP,${paid},${now},KpWeZ,"Soto, María",12.345.678-5`,
        `csv-2,${collect},2400,CLP,${other},${now},,,`,
        '',
      ].join('\n'),
    );
    const first = await quipu(['reconcile', file, '--json'], env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ credits: 2, matched: 1, unmatched: 1, duplicates: 0 });
    expect((await api().get(`/v3/payments/${paid}`)).body).toMatchObject({
      status: 'done',
      payer_name: 'Soto, María',
      bank: 'Banco Itaú',
      payment_method: 'regular_transfer',
    });
    expect(await statusOf(other)).toBe('pending/pending');

    const again = await quipu(['reconcile', file], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('2 credits: 0 matched, 0 unmatched, 2 already recorded');
    expect(await countRows(setup.server.ctx.db, 'notifications')).toBe(0);

    const unmatched = JSON.parse((await quipu(['credits', 'list', '--unmatched', '--json'], env)).stdout);
    expect(unmatched).toEqual({
      credits: [expect.objectContaining({ bank_reference: 'csv-2', status: 'unmatched', amount: 2400, reference: other, source: 'statement' })],
      next_cursor: null,
    });
    expect(unmatched.credits[0].reason).toContain('amount differs');
    const human = await quipu(['credits', 'list', '--matched'], env);
    expect(human.stdout).toMatch(/^BANK REFERENCE +STATUS +AMOUNT +ACCOUNT +REFERENCE +PAYMENT OR REASON\n/);
    expect(human.stdout).toMatch(new RegExp(`\\ncsv-1 +matched +2500 CLP +${collect} +${paid} +${paid}\\n`));
  });

  it('lists credits a page at a time, filtered, or every page with --all', async () => {
    const now = setup.server.ctx.clock.now().toISOString();
    const lines = [1, 2, 3].map((n) => `page-${n},cli-paging,100,CLP,,${now}`);
    const file = statementFile('paging.csv', ['bank_reference,account,amount,currency,reference,credited_at', ...lines].join('\n'));
    expect((await quipu(['reconcile', file], env)).code).toBe(0);

    const list = async (...args: string[]) => {
      const result = await quipu(['credits', 'list', '--account', 'cli-paging', ...args], env);
      expect(result.code).toBe(0);
      return result.stdout;
    };
    const first = JSON.parse(await list('--limit', '2', '--json'));
    expect(first.credits).toHaveLength(2);
    const second = JSON.parse(await list('--limit', '2', '--cursor', first.next_cursor, '--json'));
    expect(second).toEqual({ credits: [expect.objectContaining({ account: 'cli-paging' })], next_cursor: null });
    const references = [...first.credits, ...second.credits].map((c: { bank_reference: string }) => c.bank_reference);
    expect(references.sort()).toEqual(['page-1', 'page-2', 'page-3']);
    const all = JSON.parse(await list('--limit', '1', '--all', '--json'));
    expect(all.credits.map((c: { bank_reference: string }) => c.bank_reference)).toEqual(
      [...first.credits, ...second.credits].map((c: { bank_reference: string }) => c.bank_reference),
    );
    expect(await list('--limit', '2')).toContain(`more: --cursor ${first.next_cursor}`);
    expect(JSON.parse(await list('--from', '2000-01-01T00:00:00Z', '--to', '2001-01-01T00:00:00Z', '--json')).credits).toEqual([]);

    const bad = await quipu(['credits', 'list', '--cursor', 'nope', '--from', 'yesterday'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('credited_from: must be an ISO 8601 date-time with a time zone');
    expect(bad.stderr).toContain('cursor: is not a cursor this listing gave');
  });

  it('reads JSON lines too', async () => {
    const id = await createPayment(990);
    const line = {
      bank_reference: 'jsonl-1',
      account: setup.account.merchant.collectAccounts[0],
      amount: '990',
      currency: 'CLP',
      reference: id,
      credited_at: setup.server.ctx.clock.now().toISOString(),
      payment_method: 'simplified_transfer',
    };
    const result = await quipu(['reconcile', statementFile('movements.jsonl', `${JSON.stringify(line)}\n`)], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`\\nBANK REFERENCE +STATUS +DETAIL\\njsonl-1 +matched +payment ${id}\\n`));
    expect((await api().get(`/v3/payments/${id}`)).body).toMatchObject({ status: 'done', payment_method: 'simplified_transfer' });
  });

  it('refuses a statement with a bad line whole, naming the line and the field', async () => {
    const id = await createPayment();
    const before = await countRows(setup.server.ctx.db, 'bank_credits');
    const file = statementFile(
      'bad.csv',
      [
        'bank_reference,account,amount,currency,reference,credited_at',
        `bad-1,acc,2500,CLP,${id},2026-01-01T00:00:00Z`,
        `bad-2,acc,25.5,CLP,${id},not a date`,
      ].join('\n'),
    );
    const result = await quipu(['reconcile', file], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 3.amount: must not have decimals in this currency');
    expect(result.stderr).toContain('line 3.credited_at');
    const missing = await quipu(['reconcile', path.join(setup.server.database.dataDir, 'nope.csv')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('file: cannot be read');
    expect(await countRows(setup.server.ctx.db, 'bank_credits')).toBe(before);
    expect(await statusOf(id)).toBe('pending/pending');
  });
});

describe('quipu payments and demobank', PROCESSES, () => {
  it('marks a payment paid by the receiver, and refuses it twice', async () => {
    const id = await createPayment();
    const marked = await quipu(['payments', 'mark-paid', id], env);
    expect(marked.code).toBe(0);
    expect(marked.stdout).toContain(`${id}  done/marked-paid-by-receiver`);
    const twice = await quipu(['payments', 'mark-paid', id], env);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('Only pending or verifying payments can be marked as paid');
    expect((await quipu(['payments', 'mark-paid', 'zzzzzzzzzzzz'], env)).code).toBe(2);
  });

  it('confirms an uncertain DemoBank transfer, only where SANDBOX is on', async () => {
    const id = await createPayment();
    const session = new PayerSession(setup.server.baseUrl);
    const authorizePath = await loginToDemoBank(session, await startDemoBankAttempt(session, id));
    const form = await session.get(authorizePath);
    expect((await session.post(authorizePath, { _csrf: csrfOf(form), c1: '10', c2: '20', c3: '30' })).status).toBe(303);
    expect(await statusOf(id)).toBe('verifying/pending');
    const production = await quipu(['demobank', 'confirm', id], { ...env, SANDBOX: 'false' });
    expect(production.code).toBe(2);
    expect(production.stderr).toContain('DemoBank settles transfers only where SANDBOX is on');
    expect(await statusOf(id)).toBe('verifying/pending');
    const confirmed = await quipu(['demobank', 'confirm', id], env);
    expect(confirmed.code).toBe(0);
    expect(confirmed.stdout).toContain(`${id}  done/normal`);
    expect((await quipu(['demobank', 'fail', id], env)).code).toBe(2);
  });

  it("refuses a production account's payment and another bank's transfer", async () => {
    const production = await setup.server.account({ developer: false });
    const created = await client(setup.server.baseUrl, production.api_key).post('/v3/payments', { amount: 2500, currency: 'CLP', subject: 'Production order' });
    const refused = await quipu(['demobank', 'confirm', created.body.payment_id], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('DemoBank settles transfers of developer-mode accounts only');

    const bank = new ScriptedBank(setup.server.ctx.banks, 'WbPkK');
    onTestFinished(() => bank.unregister());
    bank.signIn = ANY_PAYER;
    bank.onTransfer = async () => ({ status: 'uncertain' });
    const id = await createPayment();
    const tab = await tabAtCoordinates(setup.server.baseUrl, id, 'WbPkK');
    expect((await tab.submit({ c1: '11', c2: '22', c3: '33' })).status).toBe(303);
    expect(await statusOf(id)).toBe('verifying/pending');
    for (const decision of ['confirm', 'fail']) {
      const other = await quipu(['demobank', decision, id], env);
      expect(other.code).toBe(2);
      expect(other.stderr).toContain('The transfer waits for Banco Santander, not DemoBank: only that bank can settle it');
    }
    expect(await statusOf(id)).toBe('verifying/pending');
  });
});
