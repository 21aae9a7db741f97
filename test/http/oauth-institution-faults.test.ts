// The flow's E-codes from what really goes wrong at the institution, not from DemoBank's rehearsal
// passwords: an institution registered in the bank registry like any bank's adapter signs the user
// in, or hangs, breaks, refuses or answers nonsense, and the client hears the contract's code
// through the real /oauth2/authorize flow, with nothing granted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankRefusal, type LoginResult } from '../../src/bank/connector.js';
import { authorizeParams, basicAuth, formPost, PageClient, redirectParams, registerRedirectUris } from '../helpers/oauth.js';
import { countRows } from '../helpers/payments.js';
import { ScriptedBank, type SignInBehaviour } from '../helpers/scripted-bank.js';
import { useTestServer } from '../helpers/server.js';

const CALLBACK = 'https://client.example/callback';
// Banco BCI: a bank of the catalogue that has no connector of its own.
const INSTITUTION = 'LrNcd';

let bank: ScriptedBank;

// The institution's share of the flow is bounded by BANK_TIMEOUT_MS like a transfer.
const setup = useTestServer({ BANK_TIMEOUT_MS: '300' });
beforeAll(async () => {
  await registerRedirectUris(setup.server, setup.account, [CALLBACK]);
  bank = new ScriptedBank(setup.server.ctx.banks, INSTITUTION);
});
afterAll(async () => {
  bank?.unregister();
});

const params = (extra: Record<string, string> = {}) => authorizeParams(setup.account, CALLBACK, { institution_id: INSTITUTION, custom: 'order 7', ...extra });
const signedIn = (rut: string): LoginResult => ({ ok: true, account: { personalIdentifier: rut, accountNumber: '1', holderName: 'Cliente BCI' } });

/** Counts that a failed flow must leave as they were. */
const granted = async () => ({
  tokens: await countRows(setup.server.ctx.db, 'oauth_tokens'),
  consents: await countRows(setup.server.ctx.db, 'oauth_consents'),
});

async function signInWith(behaviour: SignInBehaviour, extra: Record<string, string> = {}) {
  bank.signIn = behaviour;
  const browser = new PageClient(setup.server.baseUrl);
  const start = await browser.authorize(params(extra));
  expect(start.location).toMatch(/^\/oauth2\/flows\//);
  return { browser, flow: start.location!, answer: await browser.signIn(start.location!, '11.111.111-1', 'secret') };
}

describe('an institution with a connector', () => {
  it('signs the user in through it, and the flow ends in a code that buys a working token', async () => {
    const { browser, flow, answer } = await signInWith(async ({ identifier }) => signedIn(identifier));
    expect(answer.location).toBe(flow);
    const done = await browser.decide(flow, 'allow');
    const { code } = redirectParams(done.location);
    const token = await formPost(
      setup.server.baseUrl,
      '/oauth2/token',
      { grant_type: 'authorization_code', code: code!, redirect_uri: CALLBACK },
      basicAuth(setup.account),
    );
    expect(token.status).toBe(200);
  });
});

describe('faults at the institution', () => {
  const never: SignInBehaviour = () => new Promise(() => {});
  const cases: [string, string, string, string, SignInBehaviour][] = [
    ['does not answer within BANK_TIMEOUT_MS', 'E001', 'RETRY_IMMEDIATELY', 'temporarily_unavailable', never],
    [
      'reports a controlled error',
      'E003',
      'RETRY_IMMEDIATELY',
      'temporarily_unavailable',
      async () => Promise.reject(new BankRefusal('transient', 'Servicio momentáneamente no disponible')),
    ],
    [
      'breaks off the operation',
      'E002',
      'DO_NOT_RETRY',
      'temporarily_unavailable',
      async () => Promise.reject(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })),
    ],
    ['is unavailable', 'E201', 'DO_NOT_RETRY', 'temporarily_unavailable', async () => Promise.reject(new BankRefusal('unavailable', 'En mantención'))],
    ['refuses the credentials', 'E102', 'RETRY_IMMEDIATELY', 'access_denied', async () => ({ ok: false, error: 'wrong-credentials' })],
    ['refuses the identifier', 'E101', 'RETRY_IMMEDIATELY', 'access_denied', async () => ({ ok: false, error: 'invalid-identifier' })],
    // The adapter is Quipu's own code: an answer that breaks its contract is an internal failure.
    ['answers what the flow cannot use', 'E999', 'DO_NOT_RETRY', 'server_error', async () => ({ ok: true }) as unknown as LoginResult],
  ];

  it.each(cases)('when the institution %s, redirects %s (%s) and grants nothing', async (_name, code, type, error, behaviour) => {
    const before = await granted();
    const { browser, flow, answer } = await signInWith(behaviour);
    expect(answer.status).toBe(303);
    expect(answer.location!.startsWith(`${CALLBACK}?`)).toBe(true);
    const sent = redirectParams(answer.location);
    expect(sent).toEqual({ error, error_code: code, error_type: type, error_description: expect.any(String), state: 'st-123' });
    expect(answer.headers.get('x-custom')).toBe('order 7');
    const row = await setup.server.ctx.db
      .selectFrom('oauth_authorizations')
      .select(['status', 'code_hash', 'consent_id'])
      .where('authorization_id', '=', flow.split('/').pop()!)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'failed', code_hash: null, consent_id: null });
    expect(await granted()).toEqual(before);
    expect((await browser.get(flow)).status).toBe(409);
  });

  it('answers with query parameters under response_mode=form_post too', async () => {
    const { answer } = await signInWith(async () => Promise.reject(new BankRefusal('transient', 'Intente de nuevo')), { response_mode: 'form_post' });
    expect(answer.status).toBe(303);
    expect(redirectParams(answer.location)).toMatchObject({ error_code: 'E003', state: 'st-123' });
    expect(answer.headers.get('x-custom')).toBe('order 7');
  });
});
