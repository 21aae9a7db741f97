// A bank is asked to move money only once the commit that records the intent is on disk: on SQLite
// a long-running process (the test server is one) commits without flushing and flushes the WAL
// off the event loop, so without the wait a power loss could erase the only record of a transfer
// the bank made. The scripted bank looks at the database the moment it is asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durable } from '../../src/store/database.js';
import { findAttempt } from '../../src/store/attempts.js';
import { client } from '../helpers/http.js';
import { tabAtCoordinates } from '../helpers/payer-session.js';
import { ANY_PAYER, ScriptedBank } from '../helpers/scripted-bank.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const BANK = 'WbPkK';
let server: TestServer;
let bank: ScriptedBank;

beforeAll(async () => {
  server = await startTestServer();
  bank = new ScriptedBank(server.ctx.banks, BANK);
  bank.signIn = ANY_PAYER;
});
afterAll(async () => {
  bank?.unregister();
  await server?.close();
});

describe('a transfer the payer authorises', () => {
  it('reaches the bank after every commit before it, the claimed attempt included, is durable', async () => {
    const account = await server.account();
    const created = await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order' });
    expect(created.status).toBe(200);
    const tab = await tabAtCoordinates(server.baseUrl, created.body.payment_id, BANK);
    const seenByBank: { allDurable: boolean; attemptState: string | undefined }[] = [];
    bank.onTransfer = async (order) => {
      seenByBank.push({ allDurable: durable(server.ctx.db) === undefined, attemptState: (await findAttempt(server.ctx.db, order.orderId))?.state });
      return { status: 'failed', message: 'Fondos insuficientes' };
    };

    expect((await tab.submit({ c1: '11', c2: '22', c3: '33' })).status).toBe(303);
    expect(seenByBank).toEqual([{ allDurable: true, attemptState: 'authorizing' }]);
  });
});
