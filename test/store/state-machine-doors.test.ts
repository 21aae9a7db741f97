// The one door of each state machine, on a real database: a move its table does not list is refused
// before anything is written, a move from a state the row has already left changes nothing and sends
// nothing, and a move that sends a message commits it with the row.
import { beforeAll, describe, expect, it } from 'vitest';
import { changeAttempt } from '../../src/app/change-attempt.js';
import { changeDebit, changeDebits } from '../../src/app/change-debit.js';
import { changeOperation } from '../../src/app/change-operation.js';
import { changeSigning } from '../../src/app/change-signing.js';
import { startMandateSigning } from '../../src/app/mandate-signing.js';
import { DEMO_BANK_ID } from '../../src/domain/banks.js';
import type { Debit } from '../../src/domain/debit.js';
import { IllegalTransition } from '../../src/domain/state-machine.js';
import { findAttempt, latestAttemptIn } from '../../src/store/attempts.js';
import { findDebitOfPayment } from '../../src/store/debits.js';
import { findSigning } from '../../src/store/mandate-signings.js';
import { findOperation } from '../../src/store/operations.js';
import { client } from '../helpers/http.js';
import { issueOperation } from '../helpers/operations.js';
import { PayerSession, startDemoBankAttempt } from '../helpers/payer-session.js';
import { useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

let api: ReturnType<typeof client>;

const setup = useTestServer({}, { notifyUrl: 'http://127.0.0.1:9/hook' });
beforeAll(() => {
  api = client(setup.server.baseUrl, setup.account.api_key);
});

const messagesOf = async (subjectId: string) =>
  await setup.server.ctx.db.selectFrom('messages').select(['kind', 'body']).where('subject_id', '=', subjectId).execute();

describe("a debit's door", () => {
  async function dueDebit() {
    const subscriptionId = await createSubscriptionOver(api, { notify_url: 'http://127.0.0.1:9/hook' });
    await signAtDemoBank(setup.server.ctx, subscriptionId);
    const created = await api.post(
      '/v1/automatic-payment/charge-intent',
      newCharge(subscriptionId, { amount: 100, transaction_id: 'INV-door', error_response_url: 'http://127.0.0.1:9/errors' }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return (await findDebitOfPayment(setup.server.ctx.db, created.body.payment_id))!;
  }

  it('refuses a move its table does not list, and one from a state the debit has left, writing nothing', async () => {
    const debit = await dueDebit();
    const before = await messagesOf(debit.paymentId);
    await expect(changeDebit(setup.server.ctx, debit, 'due', { event: 'settled' })).rejects.toThrow(IllegalTransition);
    expect(await changeDebit(setup.server.ctx, debit, 'submitting', { event: 'failed', message: 'Fondos insuficientes' })).toBeUndefined();
    expect(await findDebitOfPayment(setup.server.ctx.db, debit.paymentId)).toEqual(debit);
    expect(await messagesOf(debit.paymentId)).toEqual(before);
  });

  it('tells the merchant of a failed debit in the move itself, once', async () => {
    const debit = await dueDebit();
    const claimed = (await changeDebit(setup.server.ctx, debit, 'due', { event: 'claimed' }))!;
    expect(claimed.state).toBe('submitting');
    expect(await changeDebit(setup.server.ctx, debit, 'due', { event: 'claimed' })).toBeUndefined();
    const failed = (await changeDebit(setup.server.ctx, claimed, 'submitting', { event: 'failed', message: 'Fondos insuficientes' }))!;
    expect(failed).toEqual(await findDebitOfPayment(setup.server.ctx.db, debit.paymentId));
    expect(await changeDebit(setup.server.ctx, claimed, 'submitting', { event: 'failed', message: 'Fondos insuficientes' })).toBeUndefined();
    const errors = (await messagesOf(debit.paymentId)).filter((m) => m.kind === 'payment.charge.error');
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!.body)).toMatchObject({ transaction_id: 'INV-door', error_message: expect.stringContaining('Fondos insuficientes') });
  });

  it('moves a batch in one go: a refused move in it writes none of the batch, and a debit that left its state is left out', async () => {
    const [a, b, c] = [await dueDebit(), await dueDebit(), await dueDebit()];
    const claim = (debit: Debit) => ({ debit, from: 'due' as const, change: { event: 'claimed' as const } });
    await expect(changeDebits(setup.server.ctx, [claim(a), { debit: b, from: 'due', change: { event: 'settled' } }, claim(c)])).rejects.toThrow(
      IllegalTransition,
    );
    for (const debit of [a, b, c]) expect(await findDebitOfPayment(setup.server.ctx.db, debit.paymentId)).toEqual(debit);

    // Another process claimed b first: the batch claims a and c, and fails them with one message each.
    await changeDebit(setup.server.ctx, b, 'due', { event: 'claimed' });
    const claimed = await changeDebits(setup.server.ctx, [claim(a), claim(b), claim(c)]);
    expect(claimed.map((d) => [d.debitId, d.state])).toEqual([
      [a.debitId, 'submitting'],
      [c.debitId, 'submitting'],
    ]);
    const fail = (debit: Debit) => ({ debit, from: 'submitting' as const, change: { event: 'failed' as const, message: 'Fondos insuficientes' } });
    const failed = await changeDebits(setup.server.ctx, [fail(claimed[0]!), fail(claimed[1]!)]);
    expect(failed).toEqual([await findDebitOfPayment(setup.server.ctx.db, a.paymentId), await findDebitOfPayment(setup.server.ctx.db, c.paymentId)]);
    expect(await changeDebits(setup.server.ctx, [fail(claimed[0]!), fail(claimed[1]!)])).toEqual([]);
    for (const debit of [a, c]) expect((await messagesOf(debit.paymentId)).filter((m) => m.kind === 'payment.charge.error')).toHaveLength(1);
    expect((await messagesOf(b.paymentId)).filter((m) => m.kind === 'payment.charge.error')).toHaveLength(0);
  });
});

describe("a payer attempt's door", () => {
  it('refuses a move its table does not list, and one from a state the attempt has left', async () => {
    const created = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Door' });
    await startDemoBankAttempt(new PayerSession(setup.server.baseUrl), created.body.payment_id);
    const attempt = (await latestAttemptIn(setup.server.ctx.db, created.body.payment_id, ['started']))!;
    await expect(changeAttempt(setup.server.ctx, attempt, 'started', { event: 'executed' })).rejects.toThrow(IllegalTransition);
    expect(await changeAttempt(setup.server.ctx, attempt, 'authenticated', { event: 'claimed' })).toBe(false);
    expect(await findAttempt(setup.server.ctx.db, attempt.attemptId)).toEqual(attempt);
  });
});

describe("a mandate-signing session's door", () => {
  it('refuses a move its table does not list, and one from a state the session has left', async () => {
    const subscriptionId = await createSubscriptionOver(api);
    const signing = await startMandateSigning(setup.server.ctx, subscriptionId, DEMO_BANK_ID);
    await expect(changeSigning(setup.server.ctx, signing.signingId, 'started', { event: 'signed' })).rejects.toThrow(IllegalTransition);
    expect(await changeSigning(setup.server.ctx, signing.signingId, 'authenticated', { event: 'claimed' })).toBe(false);
    expect(await findSigning(setup.server.ctx.db, signing.signingId)).toEqual(signing);
  });
});

describe("an operation's door", () => {
  it('refuses a move its table does not list, and one from a state the operation has left, sending nothing', async () => {
    const { id } = await issueOperation(setup.server.baseUrl, setup.account.api_key);
    const operation = (await findOperation(setup.server.ctx.db, id))!;
    await expect(changeOperation(setup.server.ctx, setup.account.merchant, operation, 'issued', { event: 'transfer-executed' })).rejects.toThrow(
      IllegalTransition,
    );
    expect(await changeOperation(setup.server.ctx, setup.account.merchant, operation, 'running', { event: 'transfer-executed' })).toBeUndefined();
    expect(await findOperation(setup.server.ctx.db, id)).toEqual(operation);
    expect(await messagesOf(id)).toEqual([]);
  });
});
