// The dashboard's operations pages, as a browser reduced to HTTP: the list (newest first, what each
// descriptor says of the transfer, keyset pages), one operation with its result exactly as the API
// answers it, its events, the `operation.result` message with its attempt and resend, and in
// developer mode the descriptor's content; never another account's operation, never the
// descriptor's content for a production account, and every descriptor value escaped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { issueDescriptor } from '../../src/app/issue-descriptor.js';
import { formatInstant } from '../../src/render/format.js';
import { messages } from '../../src/render/words.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { issueOperation, NEW_DESCRIPTOR, runThroughPages } from '../helpers/operations.js';
import { csrfOf, type PageResponse, PayerSession, titleOf } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const OPERATIONS = '/dashboard/operations';
const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'';
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;';

let server: TestServer;
let hooks: Receiver;
let account: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  hooks = await startReceiver();
  account = await server.account({ name: 'Operations shop', notifyUrl: hooks.url });
  other = await server.account({ name: 'Other shop' });
});
afterAll(async () => {
  await hooks?.close();
  await server?.close();
});

let users = 0;

/** A signed-in session of a new dashboard user of `owner`. */
async function signedIn(owner: TestAccount): Promise<PayerSession> {
  const user = await addDashboardUser(server.ctx, owner.receiver_id, { password: CHOSEN_PASSWORD, email: `user${++users}@shop.test` });
  const session = new PayerSession(server.baseUrl);
  const form = await session.get('/dashboard/sign-in');
  const answer = await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email: user.email, password: user.password });
  expect(answer.status).toBe(303);
  return session;
}

const rowOf = (page: PageResponse, id: string) => new RegExp(`<tr data-operation-id="${id}">[\\s\\S]*?</tr>`).exec(page.html)?.[0] ?? '';
const listedIds = (page: PageResponse) => [...page.html.matchAll(/<tr data-operation-id="([^"]+)">/g)].map((m) => m[1]!);

describe('the operations list', () => {
  it('shows the account’s operations newest first with bank, amount, target account, result, creation and expiry', async () => {
    const session = await signedIn(account);
    const ran = await issueOperation(server.baseUrl, account.api_key);
    await runThroughPages(server.baseUrl, ran.id);
    const waiting = await issueOperation(server.baseUrl, account.api_key, {
      bank: 'dSXgfesd',
      params: { amount: 990.5, currency_code: 'USD', target_account_number: '77-1' },
    });
    const theirs = await issueOperation(server.baseUrl, other.api_key);

    const home = await session.get('/dashboard');
    expect(home.html).toContain(`<a href="${OPERATIONS}">Operaciones</a>`);
    const list = await session.get(OPERATIONS);
    expect(list.status).toBe(200);
    expect(titleOf(list)).toBe('Operaciones');
    const ids = listedIds(list);
    expect(ids.indexOf(waiting.id)).toBeLessThan(ids.indexOf(ran.id));
    expect(ids).not.toContain(theirs.id);
    const done = rowOf(list, ran.id);
    expect(done).toContain(`href="${OPERATIONS}/${ran.id}"`);
    expect(done).toContain('<td data-label="Banco de origen">DemoBank</td>');
    expect(done).toContain('$15.000');
    expect(done).toContain('<span class="target">Tienda SpA · 123459876</span>');
    expect(done).toContain('<span class="result" title="ok"><span class="pill pill-ok" title="OK" data-value="OK">Realizada</span></span>');
    const stored = await server.ctx.db
      .selectFrom('operations')
      .select(['created_at', 'expires_at'])
      .where('operation_id', '=', ran.id)
      .executeTakeFirstOrThrow();
    const es = messages('es');
    const at = (ms: string | number) => `<time datetime="${new Date(Number(ms)).toISOString()}" title="${formatInstant(new Date(Number(ms)), es)}">`;
    expect(done).toContain(`<td data-label="Creado">${at(stored.created_at)}`);
    expect(done).toContain(`<td data-label="Vence">${at(stored.expires_at)}`);
    const pending = rowOf(list, waiting.id);
    expect(pending).toContain('<td data-label="Banco de origen">dSXgfesd</td>');
    expect(pending).toContain('US$990,50');
    expect(pending).toContain('<span class="target">77-1</span>');
    expect(pending).toContain('<span class="result" title="issued"><span class="pill pill-off" title="CONTINUE" data-value="CONTINUE">Pendiente</span></span>');
    expect(titleOf(await session.get(`${OPERATIONS}?lang=en`))).toBe('Operations');
  });

  it('pages by cursor without repeating or skipping an operation, and refuses a cursor it did not give', async () => {
    const busy = await server.account({ name: 'Busy shop' });
    const issued = new Set<string>();
    for (let i = 0; i < 51; i++) issued.add((await issueDescriptor(server.ctx, busy.merchant, NEW_DESCRIPTOR)).operationId);
    const session = await signedIn(busy);
    const first = await session.get(OPERATIONS);
    const next = /<a href="([^"]+)" id="next">/.exec(first.html)?.[1]?.replace(/&amp;/g, '&');
    expect(listedIds(first)).toHaveLength(50);
    expect(next).toMatch(/^\/dashboard\/operations\?cursor=/);
    const second = await session.get(next!);
    expect(listedIds(second)).toHaveLength(1);
    expect(second.html).not.toContain('id="next"');
    expect(new Set([...listedIds(first), ...listedIds(second)])).toEqual(issued);
    const bad = await session.get(`${OPERATIONS}?cursor=not-a-cursor`);
    expect(bad.status).toBe(400);
  });
});

describe('an operation’s page', () => {
  it('shows the result as the API answers it, its events, the message sent with its attempt, resend, and the descriptor', async () => {
    const session = await signedIn(account);
    const op = await issueOperation(server.baseUrl, account.api_key);
    const worker = testWorker(server);
    try {
      await runThroughPages(server.baseUrl, op.id);
      await hooks.waitFor((requests) => requests.some((r) => r.body.includes(op.id)));
    } finally {
      await worker.stop();
    }
    const path = `${OPERATIONS}/${op.id}`;
    const page = await session.get(path);
    expect(page.status).toBe(200);
    const { events, ...fields } = (await client(server.baseUrl, account.api_key).get(`/quipu/v1/operations/${op.id}`)).body;
    expect(fields.result).toBe('OK');
    for (const [name, value] of Object.entries(fields))
      expect(page.html).toContain(name === 'operationId' ? `data-copy="${value}"` : `<dd data-field="${name}">${value}</dd>`);
    expect([...page.html.matchAll(/<li class="(\w+)"><time [^>]+>[^<]+<\/time><code>(\w+)<\/code><\/li>/g)].map((m) => [m[2], m[1]])).toEqual(
      events.map((e: { name: string; type: string }) => [e.name, e.type]),
    );

    const message = /<div class="message" data-message-id="([^"]+)">[\s\S]*?<\/div>/.exec(page.html)!;
    expect(message[0]).toContain('<code>operation.result</code></a>');
    expect(message[0]).toContain(`<span class="destination">${hooks.url}</span>`);
    expect(message[0]).toContain('data-value="delivered">Entregado</span>');
    expect(message[0].match(/<tr class="attempt">/g)).toHaveLength(1);
    const resent = await session.post(`/dashboard/events/${message[1]}/resend`, { _csrf: csrfOf(page), back: path });
    expect(resent.status).toBe(303);
    expect(resent.location).toBe(`${path}?done=resend`);
    const after = await session.get(resent.location!);
    expect(after.html).toContain('El mensaje se enviará de nuevo ahora.');
    expect(after.html).toContain('data-value="pending">Por enviar</span>');

    expect(page.html).toContain('Contenido del descriptor');
    expect(page.html).toContain(`<dd data-field="receiver_id">${account.receiver_id}</dd>`);
    expect(page.html).toContain('<dd data-param="payer_name">Ana Pagadora</dd>');
    expect(page.html).toContain('<dd data-param="amount">15000</dd>');
    expect(page.html).toContain('<dd data-param="target_account_personal_identifier">12.345.678-5</dd>');
  });

  it('is not found for another account’s operation, an unknown id and a malformed one', async () => {
    const session = await signedIn(account);
    const theirs = await issueOperation(server.baseUrl, other.api_key);
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const page = await session.get(`${OPERATIONS}/${id}`);
      expect(page.status, id).toBe(404);
      expect(titleOf(page), id).toBe('No encontrado');
      expect(page.html).not.toContain('Tienda SpA');
    }
  });

  it('shows a production account nothing of the descriptor’s content', async () => {
    const production = await server.account({ name: 'Production shop', developer: false });
    const op = await issueOperation(server.baseUrl, production.api_key);
    const session = await signedIn(production);
    const page = await session.get(`${OPERATIONS}/${op.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<dd data-field="result">CONTINUE</dd>');
    expect(page.html).not.toContain('Contenido del descriptor');
    expect(page.html).not.toContain('data-param');
    for (const value of [
      NEW_DESCRIPTOR.params.payer_name,
      NEW_DESCRIPTOR.params.payer_email,
      NEW_DESCRIPTOR.params.subject,
      NEW_DESCRIPTOR.params.target_account_personal_identifier,
    ]) {
      expect(page.html).not.toContain(value);
      expect((await session.get(OPERATIONS)).html).not.toContain(value);
    }
  });
});

describe('escaping', () => {
  it('shows the descriptor’s subject, payer name and target account name as text, never as markup', async () => {
    const session = await signedIn(account);
    const params = { ...NEW_DESCRIPTOR.params, subject: `S ${XSS}`, payer_name: `N ${XSS}`, target_account_name: `T ${XSS}` };
    const op = await issueOperation(server.baseUrl, account.api_key, { bank: NEW_DESCRIPTOR.bank, params });
    const list = await session.get(OPERATIONS);
    const page = await session.get(`${OPERATIONS}/${op.id}`);
    for (const shown of [list, page]) {
      expect(shown.status).toBe(200);
      expect(shown.html).not.toMatch(/<script>alert|<img src=x/);
    }
    expect(rowOf(list, op.id)).toContain(`<span class="target">T ${ESCAPED} · 123459876</span>`);
    expect(page.html).toContain(`<dd data-param="subject">S ${ESCAPED}</dd>`);
    expect(page.html).toContain(`<dd data-param="payer_name">N ${ESCAPED}</dd>`);
    expect(page.html).toContain(`<dd data-param="target_account_name">T ${ESCAPED}</dd>`);
  });
});
