// The token endpoint's client credentials grant, bearer authentication of the v3 API and the
// attacks on it, revocation, key rotation and the discovery documents, against a real server.
import { createHmac, randomBytes } from 'node:crypto';
import { type CryptoKey, exportSPKI, generateKeyPair, importJWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { withDb } from '../../src/app/context.js';
import { revokeToken } from '../../src/app/revoke-token.js';
import { rotateKeys } from '../../src/app/rotate-keys.js';
import { signJwt } from '../../src/app/signed-tokens.js';
import { createSigningKey, KeyRing } from '../../src/app/token-keys.js';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { call, client } from '../helpers/http.js';
import { basicAuth, clientCredentialsToken, decodeJwtPart, FORM, formPost } from '../helpers/oauth.js';
import { countRows } from '../helpers/payments.js';
import { type TestAccount, useTestServer } from '../helpers/server.js';

let keys: KeyRing;
let paymentId: string;

const setup = useTestServer();
beforeAll(async () => {
  keys = new KeyRing(setup.server.ctx.db, setup.server.ctx.secrets, setup.server.ctx.clocks, setup.server.ctx.feed);
  const created = await client(setup.server.baseUrl, setup.account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Bearer test' });
  paymentId = created.body.payment_id;
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const getPayment = (token: string, id = paymentId) => call(setup.server.baseUrl, 'GET', `/v3/payments/${id}`, { headers: bearer(token) });

/** Claims of a valid access token of `account`, to be bent one at a time. */
function claims(overrides: Record<string, unknown> = {}) {
  const iat = Math.floor(setup.server.ctx.clock.now().getTime() / 1000);
  return {
    iss: setup.server.baseUrl,
    sub: String(setup.account.receiver_id),
    aud: setup.server.baseUrl,
    client_id: String(setup.account.receiver_id),
    iat,
    exp: iat + 3600,
    jti: 'x',
    scope: 'api',
    ...overrides,
  };
}

/** A token signed with the server's real key, carrying the jti of a token really issued. */
async function forged(overrides: Record<string, unknown>, typ = 'at+jwt'): Promise<string> {
  const issued = await clientCredentialsToken(setup.server, setup.account);
  const jti = decodeJwtPart(issued, 1).jti;
  return signJwt(await keys.signingKey(), claims({ jti, ...overrides }), typ);
}

describe('client credentials grant', () => {
  it('issues a one-year ES256 JWT with the contract fields, whose jti alone is stored', async () => {
    const before = await countRows(setup.server.ctx.db, 'oauth_tokens');
    const res = await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials' }, basicAuth(setup.account));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 31536000, scope: 'api' });
    expect(res.body.refresh_token).toBeUndefined();
    const header = decodeJwtPart(res.body.access_token, 0);
    const payload = decodeJwtPart(res.body.access_token, 1);
    expect(header).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'at+jwt' });
    expect(payload).toMatchObject({
      iss: setup.server.baseUrl,
      aud: setup.server.baseUrl,
      sub: String(setup.account.receiver_id),
      scope: 'api',
      jti: expect.any(String),
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(31536000);
    expect(await countRows(setup.server.ctx.db, 'oauth_tokens')).toBe(before + 1);
    const row = await setup.server.ctx.db
      .selectFrom('oauth_tokens')
      .selectAll()
      .where('jti', '=', payload.jti as string)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ receiver_id: setup.account.receiver_id, grant_type: 'client_credentials', revoked_at: null });
    expect(JSON.stringify(row)).not.toContain(res.body.access_token.split('.')[2]);
  });

  it('accepts the client credentials in the form body too', async () => {
    const res = await formPost(setup.server.baseUrl, '/oauth2/token', {
      grant_type: 'client_credentials',
      client_id: String(setup.account.receiver_id),
      client_secret: setup.account.secret,
    });
    expect(res.status).toBe(200);
    expect((await getPayment(res.body.access_token)).status).toBe(200);
  });

  it.each([
    ['a wrong secret', (a: TestAccount) => basicAuth({ receiver_id: a.receiver_id, secret: '0'.repeat(40) })],
    ['an unknown client', () => basicAuth({ receiver_id: 999999999, secret: '0'.repeat(40) })],
    ['no credentials', () => null],
    ['a bearer header instead of Basic', () => 'Bearer abc'],
  ])('answers %s with 401 invalid_client and WWW-Authenticate, issuing nothing', async (_name, auth) => {
    const before = await countRows(setup.server.ctx.db, 'oauth_tokens');
    const res = await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials' }, auth(setup.account));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(await countRows(setup.server.ctx.db, 'oauth_tokens')).toBe(before);
  });

  it.each([
    ['refresh tokens do not exist', { grant_type: 'refresh_token', refresh_token: 'x' }, 400, 'unsupported_grant_type'],
    ['an unknown grant', { grant_type: 'password' }, 400, 'unsupported_grant_type'],
    ['a missing grant_type', {}, 400, 'invalid_request'],
  ])('refuses %s with the RFC 6749 error', async (_name, form, status, error) => {
    const before = await countRows(setup.server.ctx.db, 'oauth_tokens');
    const res = await formPost(setup.server.baseUrl, '/oauth2/token', form as Record<string, string>, basicAuth(setup.account));
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(await countRows(setup.server.ctx.db, 'oauth_tokens')).toBe(before);
  });

  it('accepts Basic with the same client_id in the form (it names the client, it does not authenticate it)', async () => {
    const id = String(setup.account.receiver_id);
    const issued = await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials', client_id: id }, basicAuth(setup.account));
    expect(issued.status).toBe(200);
    expect((await getPayment(issued.body.access_token)).status).toBe(200);
    const revoked = await formPost(setup.server.baseUrl, '/oauth2/revoke', { token: issued.body.access_token, client_id: id }, basicAuth(setup.account));
    expect(revoked.status).toBe(200);
    expect((await getPayment(issued.body.access_token)).status).toBe(401);
  });

  it.each([
    ['a client_secret in the form too (two methods)', (a: TestAccount) => ({ client_secret: a.secret })],
    ['a client_id in the form naming another client', () => ({ client_id: '999999999' })],
  ])('refuses Basic with %s as invalid_request, issuing nothing', async (_name, extra) => {
    const before = await countRows(setup.server.ctx.db, 'oauth_tokens');
    const res = await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials', ...extra(setup.account) }, basicAuth(setup.account));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    expect(await countRows(setup.server.ctx.db, 'oauth_tokens')).toBe(before);
  });

  it('refuses two client authentication methods at once, a repeated parameter and a JSON body', async () => {
    const both = await formPost(
      setup.server.baseUrl,
      '/oauth2/token',
      { grant_type: 'client_credentials', client_id: String(setup.account.receiver_id), client_secret: setup.account.secret },
      basicAuth(setup.account),
    );
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_request');
    const repeated = await fetch(`${setup.server.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(setup.account), 'content-type': FORM },
      body: 'grant_type=client_credentials&grant_type=client_credentials',
    });
    expect(repeated.status).toBe(400);
    expect(((await repeated.json()) as { error: string }).error).toBe('invalid_request');
    const json = await fetch(`${setup.server.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(setup.account), 'content-type': 'application/json' },
      body: '{"grant_type":"client_credentials"}',
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('bearer authentication', () => {
  it('authenticates GET /v3/payments/{id} as the token subject’s account', async () => {
    const token = await clientCredentialsToken(setup.server, setup.account);
    const res = await getPayment(token);
    expect(res.status).toBe(200);
    expect(res.body.payment_id).toBe(paymentId);
  });

  it('does not let one account’s token read another account’s payment', async () => {
    const other = await setup.server.account();
    const res = await getPayment(await clientCredentialsToken(setup.server, other));
    expect(res.status).toBe(404);
  });

  it('refuses x-api-key and Bearer together with 400', async () => {
    const res = await call(setup.server.baseUrl, 'GET', `/v3/payments/${paymentId}`, {
      apiKey: setup.account.api_key,
      headers: bearer(await clientCredentialsToken(setup.server, setup.account)),
    });
    expect(res.status).toBe(400);
  });

  const attacks: [string, () => Promise<string>][] = [
    [
      'alg none',
      async () => {
        const jti = decodeJwtPart(await clientCredentialsToken(setup.server, setup.account), 1).jti;
        const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
        return `${part({ alg: 'none', typ: 'at+jwt' })}.${part(claims({ jti }))}.`;
      },
    ],
    [
      'HS256 keyed with the server’s public key',
      async () => {
        const jti = decodeJwtPart(await clientCredentialsToken(setup.server, setup.account), 1).jti;
        const jwks = (await call(setup.server.baseUrl, 'GET', '/oauth2/jwks')).body;
        const pem = await exportSPKI((await importJWK(jwks.keys[0], 'ES256', { extractable: true })) as CryptoKey);
        const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
        const input = `${part({ alg: 'HS256', typ: 'at+jwt', kid: jwks.keys[0].kid })}.${part(claims({ jti }))}`;
        return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
      },
    ],
    [
      'a key the server never had',
      async () => {
        const jti = decodeJwtPart(await clientCredentialsToken(setup.server, setup.account), 1).jti;
        const { privateKey } = await generateKeyPair('ES256');
        return new SignJWT(claims({ jti })).setProtectedHeader({ alg: 'ES256', kid: 'someone-else', typ: 'at+jwt' }).sign(privateKey);
      },
    ],
    ['another issuer', () => forged({ iss: 'https://evil.example' })],
    ['another audience', () => forged({ aud: 'https://other-api.example' })],
    ['an expired token (past iat and exp)', () => forged({ iat: 1_600_000_000, exp: 1_600_003_600 })],
    ['a token without typ at+jwt (an id_token)', () => forged({}, 'JWT')],
    ['a jti that was never issued', async () => signJwt(await keys.signingKey(), claims({ jti: 'never-issued' }), 'at+jwt')],
    ['a subject other than the token’s owner', async () => forged({ sub: String((await setup.server.account()).receiver_id), client_id: undefined })],
    [
      'a tampered payload',
      async () => {
        const [h, , s] = (await clientCredentialsToken(setup.server, setup.account)).split('.');
        return `${h}.${Buffer.from(JSON.stringify(claims({ jti: 'x' }))).toString('base64url')}.${s}`;
      },
    ],
  ];

  it('accepts the unbent forgery: every refusal below comes from the one claim or header bent', async () => {
    expect((await getPayment(await forged({}))).status).toBe(200);
  });

  it.each(attacks)('refuses %s with a bare 401', async (_name, make) => {
    const res = await getPayment(await make());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 401, message: 'Invalid or expired access token: get a new one from POST /oauth2/token' });
    // The same challenge whichever check failed.
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quipu", error="invalid_token"');
  });
});

describe('revocation', () => {
  it('revokes a token at once and answers 200 again for it', async () => {
    const token = await clientCredentialsToken(setup.server, setup.account);
    expect((await getPayment(token)).status).toBe(200);
    const res = await formPost(setup.server.baseUrl, '/oauth2/revoke', { token }, basicAuth(setup.account));
    expect(res.status).toBe(200);
    const refused = await getPayment(token);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ status: 401, message: 'Invalid or expired access token: get a new one from POST /oauth2/token' });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="quipu", error="invalid_token"');
    const row = await setup.server.ctx.db
      .selectFrom('oauth_tokens')
      .select('revoked_at')
      .where('jti', '=', decodeJwtPart(token, 1).jti as string)
      .executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    expect((await formPost(setup.server.baseUrl, '/oauth2/revoke', { token }, basicAuth(setup.account))).status).toBe(200);
  });

  it('accepts the client credentials in the form body instead of Basic', async () => {
    const token = await clientCredentialsToken(setup.server, setup.account);
    expect((await getPayment(token)).status).toBe(200);
    const res = await formPost(setup.server.baseUrl, '/oauth2/revoke', {
      token,
      client_id: String(setup.account.receiver_id),
      client_secret: setup.account.secret,
    });
    expect(res.status).toBe(200);
    expect((await getPayment(token)).status).toBe(401);
  });

  it.each([
    [
      'a wrong secret in the form',
      (token: string) =>
        formPost(setup.server.baseUrl, '/oauth2/revoke', { token, client_id: String(setup.account.receiver_id), client_secret: '0'.repeat(40) }),
    ],
    [
      'a client_id without secret in the form',
      (token: string) => formPost(setup.server.baseUrl, '/oauth2/revoke', { token, client_id: String(setup.account.receiver_id) }),
    ],
    [
      'a wrong secret in Basic',
      (token: string) =>
        formPost(setup.server.baseUrl, '/oauth2/revoke', { token }, basicAuth({ receiver_id: setup.account.receiver_id, secret: '0'.repeat(40) })),
    ],
    [
      'an unknown client in Basic',
      (token: string) => formPost(setup.server.baseUrl, '/oauth2/revoke', { token }, basicAuth({ receiver_id: 999999999, secret: setup.account.secret })),
    ],
    ['no client authentication', (token: string) => formPost(setup.server.baseUrl, '/oauth2/revoke', { token }, null)],
  ])('answers %s with 401 invalid_client and WWW-Authenticate, revoking nothing', async (_name, revoke) => {
    const token = await clientCredentialsToken(setup.server, setup.account);
    const res = await revoke(token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="quipu"/);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect((await getPayment(token)).status).toBe(200);
  });

  it('answers 200 for unknown and malformed tokens (RFC 7009)', async () => {
    expect((await formPost(setup.server.baseUrl, '/oauth2/revoke', { token: 'not-a-token' }, basicAuth(setup.account))).status).toBe(200);
    expect((await formPost(setup.server.baseUrl, '/oauth2/revoke', { token: 'a.b.c', token_type_hint: 'access_token' }, basicAuth(setup.account))).status).toBe(
      200,
    );
  });

  it('needs the client’s credentials and the token, and will not revoke another client’s token', async () => {
    const token = await clientCredentialsToken(setup.server, setup.account);
    expect((await formPost(setup.server.baseUrl, '/oauth2/revoke', {}, basicAuth(setup.account))).body.error).toBe('invalid_request');
    const other = await setup.server.account();
    const res = await formPost(setup.server.baseUrl, '/oauth2/revoke', { token }, basicAuth(other));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unauthorized_client');
    expect((await getPayment(token)).status).toBe(200);
  });
});

describe('invalidations in the process that makes them', () => {
  it('applies a revocation here only once it commits: one rolled back leaves the token working', async () => {
    const token = await clientCredentialsToken(setup.server, setup.account);
    expect((await getPayment(token)).status).toBe(200);
    // Loaded before the transaction holds the connection (SQLite has one).
    await keys.signingKey();
    const rolledBack = setup.server.ctx.db.transaction().execute(async (trx) => {
      await revokeToken(withDb(setup.server.ctx, trx), keys, setup.account.merchant, token);
      throw new Error('the commit failed');
    });
    await expect(rolledBack).rejects.toThrow('the commit failed');
    expect((await getPayment(token)).status).toBe(200);
    const row = await setup.server.ctx.db
      .selectFrom('oauth_tokens')
      .select('revoked_at')
      .where('jti', '=', decodeJwtPart(token, 1).jti as string)
      .executeTakeFirstOrThrow();
    expect(row.revoked_at).toBeNull();
  });

  it('refuses an API key as soon as its rotation returns, and accepts the new one', async () => {
    const owner = await setup.server.account();
    const path = `/v3/payments/${(await client(setup.server.baseUrl, owner.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Key rotation' })).body.payment_id}`;
    // Cached in this process by the request before.
    expect((await client(setup.server.baseUrl, owner.api_key).get(path)).status).toBe(200);
    const { apiKey } = await updateMerchant(setup.server.ctx, owner.receiver_id, { rotateApiKey: true });
    expect((await client(setup.server.baseUrl, owner.api_key).get(path)).status).toBe(401);
    expect((await client(setup.server.baseUrl, apiKey!).get(path)).status).toBe(200);
  });
});

describe('discovery and keys', () => {
  it('publishes the OpenID configuration with the issuer and every endpoint', async () => {
    const res = await call(setup.server.baseUrl, 'GET', '/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: setup.server.baseUrl,
      authorization_endpoint: `${setup.server.baseUrl}/oauth2/authorize`,
      token_endpoint: `${setup.server.baseUrl}/oauth2/token`,
      revocation_endpoint: `${setup.server.baseUrl}/oauth2/revoke`,
      jwks_uri: `${setup.server.baseUrl}/oauth2/jwks`,
      code_challenge_methods_supported: ['S256', 'plain'],
      id_token_signing_alg_values_supported: ['ES256'],
      response_modes_supported: ['query', 'form_post'],
    });
    expect(res.body.grant_types_supported).not.toContain('refresh_token');
  });

  it('keeps old tokens valid across a rotation, signs new ones with the new kid and publishes both keys', async () => {
    const old = await clientCredentialsToken(setup.server, setup.account);
    const oldKid = decodeJwtPart(old, 0).kid;
    const rotation = await rotateKeys(setup.server.ctx);
    expect(rotation.retired).toContain(oldKid);
    const fresh = await clientCredentialsToken(setup.server, setup.account);
    expect(decodeJwtPart(fresh, 0).kid).toBe(rotation.kid);
    expect(rotation.kid).not.toBe(oldKid);
    expect((await getPayment(old)).status).toBe(200);
    expect((await getPayment(fresh)).status).toBe(200);
    const kids = (await call(setup.server.baseUrl, 'GET', '/oauth2/jwks')).body.keys.map((k: { kid: string }) => k.kid);
    expect(kids).toEqual([rotation.kid, oldKid, ...kids.slice(2)]);
    const stored = await setup.server.ctx.db.selectFrom('oauth_keys').select('private_key_enc').where('kid', '=', rotation.kid).executeTakeFirstOrThrow();
    expect(stored.private_key_enc.startsWith(setup.server.ctx.secrets.currentPrefix)).toBe(true);
    expect(stored.private_key_enc).not.toContain('PRIVATE KEY');
  });

  it('stops accepting a cached token once the developer clock passes its expiry', async () => {
    const token = await clientCredentialsToken(setup.server, setup.account);
    expect((await getPayment(token)).status).toBe(200);
    setup.server.ctx.clocks.setOffset(setup.server.ctx.clock.offsetMs + 366 * 24 * 3_600_000);
    expect((await getPayment(token)).status).toBe(401);
    expect((await getPayment(await clientCredentialsToken(setup.server, setup.account))).status).toBe(200);
  });

  it('finds a key created elsewhere (its feed entry not read yet) right after tokens with made-up kids', async () => {
    const jti = decodeJwtPart(await clientCredentialsToken(setup.server, setup.account), 1).jti;
    const { privateKey } = await generateKeyPair('ES256');
    for (let i = 0; i < 3; i++) {
      // Shaped like a real kid (a thumbprint), so each one is looked up.
      const madeUp = await new SignJWT(claims({ jti }))
        .setProtectedHeader({ alg: 'ES256', kid: randomBytes(32).toString('base64url'), typ: 'at+jwt' })
        .sign(privateKey);
      expect((await getPayment(madeUp)).status).toBe(401);
    }
    // What another process's first key or rotation writes, without the feed entry.
    const kid = await createSigningKey(setup.server.ctx.db, setup.server.ctx.secrets, setup.server.ctx.clock.now());
    const signing = await new KeyRing(setup.server.ctx.db, setup.server.ctx.secrets, setup.server.ctx.clocks, setup.server.ctx.feed).signingKey();
    expect(signing.kid).toBe(kid);
    expect((await getPayment(await signJwt(signing, claims({ jti }), 'at+jwt'))).status).toBe(200);
  });
});
