// A payer must not wait for a bank for good: a login the bank does not answer is asked again, a
// transfer it does not answer within BANK_TIMEOUT_MS is left uncertain, a transfer a stopped
// process left authorizing (its footprint in the database is all a crash leaves) becomes
// uncertain through housekeeping, and housekeeping asks the bank what became of an uncertain
// transfer until it says, so the payment is reconciled or the payer can pay again. The bank
// connector is the one thing swapped: it is the boundary to the outside world.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { recoverStaleTransfers } from '../../src/app/recover-stale-transfers.js';
import type { TransferOrder } from '../../src/bank/connector.js';
import { changeAttempt } from '../../src/app/change-attempt.js';
import { findAttempt } from '../../src/store/attempts.js';
import { client } from '../helpers/http.js';
import { runEveryJob } from '../helpers/jobs.js';
import { csrfOf, PayerSession, startDemoBankAttempt, tabAtCoordinates as tabAtCoordinatesOf, titleOf } from '../helpers/payer-session.js';
import { ANY_PAYER, ScriptedBank } from '../helpers/scripted-bank.js';
import { useTestServer } from '../helpers/server.js';

const BANK_TIMEOUT_MS = 300;

const setup = useTestServer({ BANK_TIMEOUT_MS: String(BANK_TIMEOUT_MS) });
afterEach(() => vi.restoreAllMocks());

const api = () => client(setup.server.baseUrl, setup.account.api_key);
const PAY = { c1: '11', c2: '22', c3: '33' };

async function createPayment(): Promise<string> {
  const created = await api().post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order' });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

const statusOf = async (id: string) => {
  const { status, status_detail } = (await api().get(`/v3/payments/${id}`)).body;
  return `${status}/${status_detail}`;
};
const attemptIdOf = (path: string) => path.split('/')[3]!;
const stateOf = async (path: string) => (await findAttempt(setup.server.ctx.db, attemptIdOf(path)))!.state;

const tabAtCoordinates = (id: string) => tabAtCoordinatesOf(setup.server.baseUrl, id);

describe('a bank that does not answer in time', () => {
  it('leaves the transfer uncertain and the payer in verification, without waiting for it', async () => {
    const id = await createPayment();
    const tab = await tabAtCoordinates(id);
    vi.spyOn(setup.server.demoBank, 'transfer').mockReturnValueOnce(new Promise(() => {}));

    const reply = await tab.submit(PAY);
    expect(reply.status).toBe(303);
    expect(titleOf(await new PayerSession(setup.server.baseUrl).get(reply.location!))).toBe('Pago en verificación');
    expect(await stateOf(tab.path)).toBe('uncertain');
    expect(await statusOf(id)).toBe('verifying/pending');
  });
});

describe('a bank that does not answer a login', () => {
  it.each([
    ['breaks off', () => Promise.reject(new Error('socket hang up'))],
    ['keeps silent', () => new Promise<never>(() => {})],
  ])('that %s: the payer is asked to try again, the attempt unchanged, and the next login works', async (_, answer) => {
    const id = await createPayment();
    const session = new PayerSession(setup.server.baseUrl);
    const bankPath = await startDemoBankAttempt(session, id);
    const credentials = { _csrf: csrfOf(await session.get(bankPath)), rut: '11.111.111-1', password: '1234' };
    vi.spyOn(setup.server.demoBank, 'login').mockImplementationOnce(answer);

    const refused = await session.post(`${bankPath}/login`, credentials);
    expect(refused.status).toBe(503);
    expect(refused.html).toContain('El banco no respondió. Inténtalo de nuevo en unos momentos.');
    expect(await stateOf(bankPath)).toBe('started');

    const retried = await session.post(`${bankPath}/login`, { ...credentials, _csrf: csrfOf(refused) });
    expect(retried.status).toBe(303);
    expect(await stateOf(bankPath)).toBe('authenticated');
  });
});

describe('a transfer a stopped process left authorizing', () => {
  /** What a process killed while asking the bank leaves behind: the attempt claimed, no answer applied. */
  async function leftAuthorizing(path: string) {
    const moved = await changeAttempt(setup.server.ctx, { attemptId: attemptIdOf(path), receiverId: setup.account.receiver_id }, 'authenticated', {
      event: 'claimed',
    });
    expect(moved).toBe(true);
  }

  it('is left alone while a live request could still be waiting for the bank', async () => {
    const id = await createPayment();
    const tab = await tabAtCoordinates(id);
    await leftAuthorizing(tab.path);
    expect(await recoverStaleTransfers(setup.server.ctx)).toBe(0);
    expect(await stateOf(tab.path)).toBe('authorizing');
    expect(await statusOf(id)).toBe('pending/pending');
  });

  it('becomes uncertain through housekeeping, and once the bank fails it the payer pays again', async () => {
    const id = await createPayment();
    const stale = await tabAtCoordinates(id);
    await leftAuthorizing(stale.path);
    const blocked = await tabAtCoordinates(id);
    expect((await blocked.submit(PAY)).status).toBe(409);

    expect((await api().post('/sandbox/clock', { advance: '2m' })).status).toBe(200);
    await runEveryJob(setup.server.ctx);
    expect(await stateOf(stale.path)).toBe('uncertain');
    expect(await statusOf(id)).toBe('verifying/pending');
    expect(await recoverStaleTransfers(setup.server.ctx)).toBe(0);

    expect((await api().post(`/sandbox/demobank/payments/${id}/fail`)).status).toBe(200);
    expect(await statusOf(id)).toBe('pending/pending');
    const retry = await tabAtCoordinates(id);
    expect((await retry.submit(PAY)).status).toBe(303);
    expect(await statusOf(id)).toBe('done/normal');
    expect([await stateOf(stale.path), await stateOf(retry.path)]).toEqual(['failed', 'executed']);
  });
});

describe('a transfer its bank left uncertain', () => {
  const BANK = 'WbPkK';
  let bank: ScriptedBank;
  beforeAll(() => {
    bank = new ScriptedBank(setup.server.ctx.banks, BANK);
    bank.signIn = ANY_PAYER;
    bank.onTransfer = async () => ({ status: 'uncertain' });
  });
  afterAll(() => bank.unregister());

  /** One round of the housekeeping `quipu serve` runs each minute, to its end. */
  const housekeeping = () => runEveryJob(setup.server.ctx);
  const creditFor = (order: TransferOrder) => ({
    bankReference: `santander-${order.orderId}`,
    account: order.destination.number,
    amount: order.amount,
    currency: order.currency,
    reference: order.reference,
    creditedAt: setup.server.ctx.clock.now(),
    payerBankId: BANK,
    payerName: order.payer.holderName,
    payerEmail: order.payerEmail,
    payerPersonalIdentifier: order.payer.personalIdentifier,
    payerAccountNumber: order.payer.accountNumber,
    paymentMethod: 'simplified_transfer' as const,
    fundsSource: null,
  });

  async function uncertainTransfer() {
    const id = await createPayment();
    const tab = await tabAtCoordinatesOf(setup.server.baseUrl, id, BANK);
    expect((await tab.submit(PAY)).status).toBe(303);
    expect(await stateOf(tab.path)).toBe('uncertain');
    return { id, tab };
  }

  it('stays in verification while the bank cannot say, and is reconciled once the bank says it transferred', async () => {
    const { id, tab } = await uncertainTransfer();
    await housekeeping();
    expect(await stateOf(tab.path)).toBe('uncertain');
    expect(await statusOf(id)).toBe('verifying/pending');
    const asked = bank.ordersAsked.filter((o) => o.reference === id);
    expect(asked).toEqual([
      expect.objectContaining({ orderId: attemptIdOf(tab.path), amount: 5000 * 10_000, destination: setup.server.config.collectionAccount }),
    ]);

    bank.onStatus = async (order) => ({ status: 'executed', credit: creditFor(order) });
    await housekeeping();
    expect(await stateOf(tab.path)).toBe('executed');
    expect((await api().get(`/v3/payments/${id}`)).body).toMatchObject({
      status: 'done',
      status_detail: 'normal',
      bank: 'Banco Santander',
      bank_id: BANK,
      payment_method: 'simplified_transfer',
    });
    const credits = await setup.server.ctx.db.selectFrom('bank_credits').select(['status', 'source']).where('reference', '=', id).execute();
    expect(credits).toEqual([{ status: 'matched', source: BANK }]);
  });

  it("is failed by its bank: the payer reads the bank's message and pays again", async () => {
    const { id, tab } = await uncertainTransfer();
    bank.onStatus = async () => ({ status: 'failed', message: 'Transferencia rechazada' });
    await housekeeping();
    expect(await stateOf(tab.path)).toBe('failed');
    expect(await statusOf(id)).toBe('pending/pending');
    const page = await tab.session.get(`/payment/bank/${attemptIdOf(tab.path)}`);
    expect(titleOf(page)).toBe('La transferencia no se realizó');
    expect(page.html).toContain('Mensaje de Banco Santander: <q>Transferencia rechazada</q>');

    expect((await tabAtCoordinates(id).then((retry) => retry.submit(PAY))).status).toBe(303);
    expect(await statusOf(id)).toBe('done/normal');
  });

  it('of DemoBank stays uncertain through housekeeping until a developer tells DemoBank', async () => {
    const id = await createPayment();
    const tab = await tabAtCoordinates(id);
    expect((await tab.submit({ c1: '12', c2: '34', c3: '56' })).status).toBe(303);
    await housekeeping();
    expect(await stateOf(tab.path)).toBe('uncertain');
    expect(await statusOf(id)).toBe('verifying/pending');
    expect((await api().post(`/sandbox/demobank/payments/${id}/confirm`)).status).toBe(200);
    expect(await stateOf(tab.path)).toBe('executed');
    expect(await statusOf(id)).toBe('done/normal');
  });
});
