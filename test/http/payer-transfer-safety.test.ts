// A payment reaches a bank once at a time, over HTTP: a second tab cannot transfer while another
// attempt of the same payment waits for its bank, the merchant cannot delete it meanwhile, and a
// bank that cannot be reached leaves the transfer uncertain for the bank to settle, never an
// attempt stuck authorizing or a 500 page. The bank connector is the one thing swapped: it is the
// boundary to the outside world.
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { TransferResult } from '../../src/bank/connector.js';
import { findAttempt } from '../../src/store/attempts.js';
import { isUniqueViolation } from '../../src/store/transaction.js';
import { client } from '../helpers/http.js';
import { PayerSession, tabAtCoordinates as tabAtCoordinatesOf, titleOf } from '../helpers/payer-session.js';
import { ANY_PAYER, ScriptedBank } from '../helpers/scripted-bank.js';
import { useTestServer } from '../helpers/server.js';

const setup = useTestServer();
afterEach(() => vi.restoreAllMocks());

const api = () => client(setup.server.baseUrl, setup.account.api_key);
const PAY = { c1: '11', c2: '22', c3: '33' };
const LEAVE_UNCERTAIN = { c1: '12', c2: '34', c3: '56' };
const FAIL = { c1: '99', c2: '99', c3: '99' };

async function createPayment(fields: Record<string, unknown> = {}): Promise<string> {
  const created = await api().post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order', ...fields });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

const statusOf = async (id: string) => {
  const { status, status_detail } = (await api().get(`/v3/payments/${id}`)).body;
  return `${status}/${status_detail}`;
};
const stateOf = async (authorizePath: string) => (await findAttempt(setup.server.ctx.db, authorizePath.split('/')[3]!))!.state;
const creditsOf = (id: string) => setup.server.ctx.db.selectFrom('bank_credits').select('status').where('reference', '=', id).execute();

const tabAtCoordinates = (id: string) => tabAtCoordinatesOf(setup.server.baseUrl, id);

describe('two attempts of one payment', () => {
  it('refuse the second while the first is authorizing: one transfer, the other attempt unchanged', async () => {
    const id = await createPayment({ return_url: 'https://shop.example/thanks' });
    const [first, second] = [await tabAtCoordinates(id), await tabAtCoordinates(id)];
    const realTransfer = setup.server.demoBank.transfer;
    let answer!: () => void;
    const bankAnswers = new Promise<void>((resolve) => (answer = resolve));
    const transfer = vi.spyOn(setup.server.demoBank, 'transfer').mockImplementationOnce(async (...args) => {
      await bankAnswers;
      return realTransfer(...args);
    });

    const firstReply = first.submit(PAY);
    await expect.poll(() => stateOf(first.path)).toBe('authorizing');
    const refused = await second.submit(PAY);
    expect(refused.status).toBe(409);
    expect(titleOf(refused)).toBe('Transferencia en curso');
    expect(refused.html).toContain('Otra transferencia de este cobro espera la respuesta de su banco, así que esta no se envió.');
    expect(await stateOf(second.path)).toBe('authenticated');
    expect(await statusOf(id)).toBe('pending/pending');

    answer();
    const paid = await firstReply;
    expect(paid.status).toBe(303);
    expect(paid.location).toBe('https://shop.example/thanks');
    expect(transfer).toHaveBeenCalledTimes(1);
    expect(await statusOf(id)).toBe('done/normal');
    expect(await creditsOf(id)).toEqual([{ status: 'matched' }]);
    expect([await stateOf(first.path), await stateOf(second.path)]).toEqual(['executed', 'authenticated']);
    expect(titleOf(await second.submit(PAY))).toBe('Pago realizado');
    expect(transfer).toHaveBeenCalledTimes(1);
  });

  it('refuse the second while the first is uncertain, in the database too, until the bank fails the first', async () => {
    const id = await createPayment();
    const [first, second] = [await tabAtCoordinates(id), await tabAtCoordinates(id)];
    expect((await first.submit(LEAVE_UNCERTAIN)).status).toBe(303);
    expect(await stateOf(first.path)).toBe('uncertain');

    const refused = await second.submit(PAY);
    expect(refused.status).toBe(409);
    expect(titleOf(refused)).toBe('Pago en verificación');
    expect(await stateOf(second.path)).toBe('authenticated');
    expect(await creditsOf(id)).toEqual([]);
    // The database keeps one attempt per payment waiting for its bank whatever the code does.
    const secondId = second.path.split('/')[3]!;
    await expect(
      setup.server.ctx.db.updateTable('payment_attempts').set({ state: 'authorizing' }).where('attempt_id', '=', secondId).execute(),
    ).rejects.toSatisfy(isUniqueViolation);

    expect((await api().post(`/sandbox/demobank/payments/${id}/fail`)).status).toBe(200);
    expect(await statusOf(id)).toBe('pending/pending');
    expect((await second.submit(PAY)).status).toBe(303);
    expect(await statusOf(id)).toBe('done/normal');
    expect([await stateOf(first.path), await stateOf(second.path)]).toEqual(['failed', 'executed']);
    expect(await creditsOf(id)).toEqual([{ status: 'matched' }]);
  });
});

describe('deleting a payment', () => {
  it('is refused while its transfer waits for the bank, and allowed once the bank failed it', async () => {
    const bank = new ScriptedBank(setup.server.ctx.banks, 'WbPkK');
    onTestFinished(() => bank.unregister());
    bank.signIn = ANY_PAYER;
    let answer!: (result: TransferResult) => void;
    bank.onTransfer = () => new Promise((resolve) => (answer = resolve));
    const id = await createPayment();
    const tab = await tabAtCoordinatesOf(setup.server.baseUrl, id, 'WbPkK');

    const reply = tab.submit(PAY);
    await expect.poll(() => stateOf(tab.path)).toBe('authorizing');
    const refused = await api().delete(`/v3/payments/${id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('The payment cannot be deleted while a transfer of it waits for its bank');
    expect(await statusOf(id)).toBe('pending/pending');

    answer({ status: 'failed', message: 'Fondos insuficientes' });
    expect((await reply).status).toBe(303);
    expect(await stateOf(tab.path)).toBe('failed');
    expect((await api().delete(`/v3/payments/${id}`)).status).toBe(200);
    expect((await api().get(`/v3/payments/${id}`)).status).toBe(404);
  });

  it('is refused while the transfer is uncertain', async () => {
    const id = await createPayment();
    expect((await (await tabAtCoordinates(id)).submit(LEAVE_UNCERTAIN)).status).toBe(303);
    const refused = await api().delete(`/v3/payments/${id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('verifying');
    expect(await statusOf(id)).toBe('verifying/pending');
  });
});

describe('a double submit of the coordinates', () => {
  it('reaches the bank once when it fails the transfer: the other request says it was already sent, and the payer may try again', async () => {
    const id = await createPayment();
    const tab = await tabAtCoordinates(id);
    const transfer = vi.spyOn(setup.server.demoBank, 'transfer');
    const [first, second] = await Promise.all([tab.submit(FAIL), tab.submit(FAIL)]);
    expect([first.status, second.status].sort()).toEqual([303, 409]);
    const refused = first.status === 409 ? first : second;
    expect(refused.html).toContain('Esta transferencia ya fue enviada; no se envió otra vez.');
    expect(transfer).toHaveBeenCalledTimes(1);
    expect(await stateOf(tab.path)).toBe('failed');
    expect(await statusOf(id)).toBe('pending/pending');
    expect(await creditsOf(id)).toEqual([]);

    const again = await tab.submit(FAIL);
    expect(again.status).toBe(409);
    expect(titleOf(again)).toBe('La transferencia no se realizó');
    expect(again.html).toContain('Esta transferencia ya fue enviada; no se envió otra vez.');
    expect(again.html).toContain('Error ejecutando transferencia');
    expect(again.html).toContain(`id="retry" href="/payment/simplified/${id}"`);
    expect(transfer).toHaveBeenCalledTimes(1);
  });
});

describe('a bank that cannot be reached', () => {
  it('leaves the transfer uncertain and says so; the bank confirms it later', async () => {
    const id = await createPayment();
    const tab = await tabAtCoordinates(id);
    vi.spyOn(setup.server.demoBank, 'transfer').mockRejectedValueOnce(new Error('socket hang up'));
    const logged = vi.spyOn(setup.server.ctx.log, 'error');

    const reply = await tab.submit(PAY);
    expect(reply.status).toBe(303);
    expect(reply.location).toBe(`/payment/result/${id}`);
    const result = await new PayerSession(setup.server.baseUrl).get(reply.location!);
    expect(result.status).toBe(200);
    expect(titleOf(result)).toBe('Pago en verificación');
    expect(await stateOf(tab.path)).toBe('uncertain');
    expect(await statusOf(id)).toBe('verifying/pending');
    expect(logged).toHaveBeenCalledWith(expect.objectContaining({ err: expect.objectContaining({ message: 'socket hang up' }) }), expect.any(String));

    expect((await api().post(`/sandbox/demobank/payments/${id}/confirm`)).status).toBe(200);
    expect(await statusOf(id)).toBe('done/normal');
    expect(await stateOf(tab.path)).toBe('executed');
    expect(await creditsOf(id)).toEqual([{ status: 'matched' }]);
  });

  it('lets the payer pay again once the bank fails the transfer it left uncertain', async () => {
    const id = await createPayment();
    const tab = await tabAtCoordinates(id);
    vi.spyOn(setup.server.demoBank, 'transfer').mockRejectedValueOnce(new Error('connect ETIMEDOUT'));
    expect((await tab.submit(PAY)).status).toBe(303);
    expect(await stateOf(tab.path)).toBe('uncertain');

    expect((await api().post(`/sandbox/demobank/payments/${id}/fail`)).status).toBe(200);
    expect(await statusOf(id)).toBe('pending/pending');
    expect(await stateOf(tab.path)).toBe('failed');
    const retry = await tabAtCoordinates(id);
    expect((await retry.submit(PAY)).status).toBe(303);
    expect(await statusOf(id)).toBe('done/normal');
    expect(await creditsOf(id)).toEqual([{ status: 'matched' }]);
  });
});
