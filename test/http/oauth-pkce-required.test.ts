// PKCE required on a production installation (ASVS 10.4.6, RFC 9700 2.1.1): with SANDBOX=false an
// authorization request without a code_challenge, or with `plain`, is redirected back with the
// contract's A002 naming the parameter and opens no flow; one with S256 passes; the discovery
// document lists S256 alone. OAUTH_PKCE=optional gives the provider's rules back, which developer
// mode keeps by default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/domain/oauth-pkce.js';
import { call } from '../helpers/http.js';
import { authorizeParams, PageClient, redirectParams, registerRedirectUris } from '../helpers/oauth.js';
import { countRows } from '../helpers/payments.js';
import { serversClosedAfterAll, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const CALLBACK = 'https://client.example/callback';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const S256 = { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' };

const started = serversClosedAfterAll();

async function installation(env: Record<string, string>): Promise<{ server: TestServer; account: TestAccount }> {
  const server = await started(env);
  const account = await server.account();
  await registerRedirectUris(server, account, [CALLBACK]);
  return { server, account };
}

/** The error the client is redirected with; none when the flow's page opens. */
async function authorize(on: { server: TestServer; account: TestAccount }, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const answer = await new PageClient(on.server.baseUrl).authorize(authorizeParams(on.account, CALLBACK, extra));
  expect(answer.status).toBe(303);
  return answer.location!.startsWith('/oauth2/flows/') ? {} : redirectParams(answer.location);
}

describe('a production installation (SANDBOX=false)', () => {
  let production: { server: TestServer; account: TestAccount };
  beforeAll(async () => {
    production = await installation({ SANDBOX: 'false' });
  });

  it('refuses an authorization request without S256 PKCE, opening no flow', async () => {
    const before = await countRows(production.server.ctx.db, 'oauth_authorizations');
    expect(await authorize(production)).toMatchObject({ error_code: 'A002', error_description: expect.stringContaining('code_challenge is required') });
    for (const plain of [{ code_challenge: VERIFIER, code_challenge_method: 'plain' }, { code_challenge: VERIFIER }] as Record<string, string>[])
      expect(await authorize(production, plain)).toMatchObject({
        error_code: 'A002',
        error_description: expect.stringContaining('code_challenge_method must be S256'),
      });
    expect(await countRows(production.server.ctx.db, 'oauth_authorizations')).toBe(before);
  });

  it('takes S256, and says so in its discovery document', async () => {
    expect(await authorize(production, S256)).toEqual({});
    const discovery = await call(production.server.baseUrl, 'GET', '/.well-known/openid-configuration');
    expect(discovery.body.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('gives the provider’s rules back with OAUTH_PKCE=optional', async () => {
    const optional = await installation({ SANDBOX: 'false', OAUTH_PKCE: 'optional' });
    expect(await authorize(optional)).toEqual({});
    expect((await call(optional.server.baseUrl, 'GET', '/.well-known/openid-configuration')).body.code_challenge_methods_supported).toEqual(['S256', 'plain']);
  });
});

describe('a developer-mode installation', () => {
  it('keeps PKCE optional, plain included, as the contract has it', async () => {
    const sandbox = await installation({});
    const flows = (params: Record<string, string>) => new PageClient(sandbox.server.baseUrl).authorize(authorizeParams(sandbox.account, CALLBACK, params));
    for (const params of [{}, { code_challenge: VERIFIER, code_challenge_method: 'plain' }, S256])
      expect((await flows(params)).location, JSON.stringify(params)).toMatch(/^\/oauth2\/flows\//);
  });
});
