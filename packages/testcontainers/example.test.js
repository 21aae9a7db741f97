// The module's example suite, as a merchant's test suite would use it: one Quipu for the suite and
// an account of its own for each test. Needs a container engine with a Docker-compatible API
// (DOCKER_HOST) and Quipu's image (QUIPU_IMAGE, default quipu:latest): `npm test` in this folder.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QuipuContainer } from './index.js';

const IMAGE = process.env.QUIPU_IMAGE ?? 'quipu:latest';
let quipu;

before(async () => {
  quipu = await new QuipuContainer(IMAGE).start();
});

after(async () => {
  await quipu?.stop();
});

async function call(method, path, apiKey, body) {
  const answer = await fetch(`${quipu.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body && JSON.stringify(body),
  });
  return { status: answer.status, body: await answer.json() };
}

describe('Quipu in a container', () => {
  it('is ready with the demo account its credentials name: a payment created and read back', async () => {
    const created = await call('POST', '/v3/payments', quipu.apiKey, { amount: 1000, currency: 'CLP', subject: 'Order 1' });
    assert.equal(created.status, 200);
    const read = await call('GET', `/v3/payments/${created.body.payment_id}`, quipu.apiKey);
    assert.equal(read.body.status, 'pending');
    assert.equal(read.body.amount, 1000);
  });

  it('gives each test an account of its own, whose payments no other account sees', async () => {
    const [mine, theirs] = await Promise.all([quipu.sandboxAccount({ name: 'Test A' }), quipu.sandboxAccount({ name: 'Test B' })]);
    const created = await call('POST', '/v3/payments', mine.api_key, { amount: 2500, currency: 'CLP', subject: 'Order 2' });
    assert.equal(created.status, 200);
    assert.equal((await call('GET', `/v3/payments/${created.body.payment_id}`, mine.api_key)).body.receiver_id, mine.receiver_id);
    assert.equal((await call('GET', `/v3/payments/${created.body.payment_id}`, theirs.api_key)).status, 404);
  });

  it("removes a test's account with everything of it", async () => {
    const account = await quipu.sandboxAccount();
    assert.equal((await call('GET', '/v3/banks', account.api_key)).status, 200);
    await quipu.removeSandboxAccount(account.receiver_id);
    assert.equal((await call('GET', '/v3/banks', account.api_key)).status, 401);
  });
});
