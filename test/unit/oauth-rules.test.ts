import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../src/domain/errors.js';
import { FLOW_ERRORS, flowError, flowErrorParams } from '../../src/domain/oauth-errors.js';
import { signInFailureError } from '../../src/domain/oauth-institution.js';
import { checkPkce, s256Challenge } from '../../src/domain/oauth-pkce.js';
import { redirectUriProblem, redirectWith, customHeaderValue } from '../../src/domain/oauth-redirect.js';
import { cspSourceOf } from '../../src/http/page-security.js';
import { checkAuthorizationRequest, type ClientView } from '../../src/domain/oauth-request.js';
import { accessTokenClaims, clientCredentialsScope, idTokenClaims } from '../../src/domain/oauth-tokens.js';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe('PKCE', () => {
  it('computes the RFC 7636 appendix B challenge', () => {
    expect(s256Challenge(VERIFIER)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('requires the verifier after a challenge and refuses one without', () => {
    const s256 = { challenge: s256Challenge(VERIFIER), method: 'S256' as const };
    expect(checkPkce(s256, VERIFIER)).toBe('ok');
    expect(checkPkce(s256, undefined)).toBe('verifier_missing');
    expect(checkPkce(s256, VERIFIER.replace('d', 'e'))).toBe('mismatch');
    expect(checkPkce(s256, 'short')).toBe('verifier_malformed');
    expect(checkPkce({ challenge: VERIFIER, method: 'plain' }, VERIFIER)).toBe('ok');
    expect(checkPkce({ challenge: VERIFIER, method: 'plain' }, s256Challenge(VERIFIER))).toBe('mismatch');
    expect(checkPkce(null, undefined)).toBe('ok');
    expect(checkPkce(null, VERIFIER)).toBe('verifier_unexpected');
  });
});

describe('flow errors', () => {
  it('gives INVALID_REQUEST to A002 only, and the contract’s types to the E codes', () => {
    for (const [code, rule] of Object.entries(FLOW_ERRORS)) expect(rule.type === 'INVALID_REQUEST', code).toBe(code === 'A002');
    expect(FLOW_ERRORS.E001.type).toBe('RETRY_IMMEDIATELY');
    expect(FLOW_ERRORS.E003.type).toBe('RETRY_IMMEDIATELY');
    expect(FLOW_ERRORS.E002.type).toBe('DO_NOT_RETRY');
    expect(FLOW_ERRORS.E201.type).toBe('DO_NOT_RETRY');
    expect(FLOW_ERRORS.E999.type).toBe('DO_NOT_RETRY');
  });

  it('names each way a sign-in at the institution fails with the contract’s code for it', () => {
    const codes = Object.fromEntries(
      (['invalid-identifier', 'wrong-credentials', 'no-answer', 'transient', 'failed', 'unavailable', 'no-connector'] as const).map((f) => [
        f,
        signInFailureError(f).code,
      ]),
    );
    expect(codes).toEqual({
      'invalid-identifier': 'E101',
      'wrong-credentials': 'E102',
      'no-answer': 'E001',
      transient: 'E003',
      failed: 'E002',
      unavailable: 'E201',
      'no-connector': 'E201',
    });
  });

  it('carries state only when the client sent one', () => {
    expect(flowErrorParams(flowError('A001'), null)).toEqual({
      error: 'access_denied',
      error_code: 'A001',
      error_type: 'DO_NOT_RETRY',
      error_description: 'The user refused consent',
    });
    expect(flowErrorParams(flowError('A002', 'scope', 'invalid_scope'), 'x')).toMatchObject({ error: 'invalid_scope', state: 'x' });
  });
});

describe('authorization request', () => {
  const client: ClientView = { receiverId: 123456, developer: true, redirectUris: ['https://shop.example/cb'] };
  const valid = {
    client_id: '123456',
    redirect_uri: 'https://shop.example/cb',
    response_type: 'code',
    response_mode: 'query',
    scope: 'openid api',
    institution_id: 'Bawdf',
  };
  const demoOnly = (bankId: string) => bankId === 'Bawdf';

  it('accepts the contract’s parameters and defaults the PKCE method to plain', () => {
    const check = checkAuthorizationRequest({ ...valid, code_challenge: VERIFIER }, client, demoOnly);
    expect(check).toMatchObject({ outcome: 'ok', request: { clientId: 123456, pkce: { challenge: VERIFIER, method: 'plain' }, state: null } });
  });

  it('accepts the scopes "openid api" in any order and spacing (RFC 6749 §3.3), doubting another spelling', () => {
    for (const scope of ['api openid', 'openid  api', ' openid api', 'openid api ']) {
      const doubts: FieldError[] = [];
      expect(checkAuthorizationRequest({ ...valid, scope }, client, demoOnly, doubts), scope).toMatchObject({ outcome: 'ok' });
      expect(doubts, scope).toEqual([{ field: 'scope', message: 'is read as "openid api", as the contract writes it' }]);
    }
    const doubts: FieldError[] = [];
    checkAuthorizationRequest(valid, client, demoOnly, doubts);
    expect(doubts).toEqual([]);
  });

  it('refuses any other set of scopes', () => {
    for (const scope of ['openid', 'openid api admin', 'openid api api', 'openid openid', 'openid+api', 'OPENID API', 'openid\tapi', '']) {
      expect(checkAuthorizationRequest({ ...valid, scope }, client, demoOnly), scope).toMatchObject({
        outcome: 'redirect-error',
        error: { code: 'A002', error: 'invalid_scope' },
      });
    }
  });

  it('reads an empty state or nonce as not sent, doubting it', () => {
    const doubts: FieldError[] = [];
    expect(checkAuthorizationRequest({ ...valid, state: '', nonce: '' }, client, demoOnly, doubts)).toMatchObject({
      outcome: 'ok',
      request: { state: null, nonce: null },
    });
    expect(doubts).toEqual([
      { field: 'state', message: 'is empty: read as not sent' },
      { field: 'nonce', message: 'is empty: read as not sent' },
    ]);
    expect(checkAuthorizationRequest({ ...valid, state: '', scope: 'openid' }, client, demoOnly)).toMatchObject({ outcome: 'redirect-error', state: null });
  });

  it('accepts custom up to 1024 characters and refuses a longer one', () => {
    expect(checkAuthorizationRequest({ ...valid, custom: 'x'.repeat(1024) }, client, demoOnly)).toMatchObject({
      outcome: 'ok',
      request: { custom: 'x'.repeat(1024) },
    });
    expect(checkAuthorizationRequest({ ...valid, custom: 'x'.repeat(1025) }, client, demoOnly)).toMatchObject({
      outcome: 'redirect-error',
      error: { code: 'A002', description: expect.stringContaining('custom') },
    });
  });

  it('refuses an unknown client and an unregistered redirect_uri before looking at anything else', () => {
    expect(checkAuthorizationRequest({ ...valid, scope: 'bad' }, undefined, demoOnly)).toMatchObject({ outcome: 'refused', parameter: 'client_id' });
    for (const uri of ['https://shop.example/cb/', 'https://SHOP.example/cb', 'https://shop.example/cb?x=1', 'https://shop.example/c']) {
      expect(checkAuthorizationRequest({ ...valid, redirect_uri: uri, scope: 'bad' }, client, demoOnly), uri).toMatchObject({
        outcome: 'refused',
        parameter: 'redirect_uri',
      });
    }
  });

  it('does not echo a state that broke its own rule', () => {
    const check = checkAuthorizationRequest({ ...valid, state: 'x'.repeat(2000) }, client, demoOnly);
    expect(check).toMatchObject({ outcome: 'redirect-error', state: null, error: { code: 'A002' } });
  });

  it('echoes custom with an error unless custom itself broke its rule or was repeated', () => {
    const badScope = { ...valid, scope: 'openid' };
    expect(checkAuthorizationRequest({ ...badScope, custom: 'c' }, client, demoOnly)).toMatchObject({ outcome: 'redirect-error', custom: 'c' });
    expect(checkAuthorizationRequest({ ...badScope, custom: '' }, client, demoOnly)).toMatchObject({ outcome: 'redirect-error', custom: '' });
    expect(checkAuthorizationRequest(badScope, client, demoOnly)).toMatchObject({ outcome: 'redirect-error', custom: null });
    expect(checkAuthorizationRequest({ ...valid, custom: 'x'.repeat(1025) }, client, demoOnly)).toMatchObject({ outcome: 'redirect-error', custom: null });
    expect(checkAuthorizationRequest({ ...valid, custom: ['a', 'b'] }, client, demoOnly)).toMatchObject({ outcome: 'redirect-error', custom: null });
  });

  it('answers a known bank without connector with E201 and an unknown one with A002', () => {
    expect(checkAuthorizationRequest({ ...valid, institution_id: 'WbPkK' }, client, demoOnly)).toMatchObject({ error: { code: 'E201' } });
    expect(checkAuthorizationRequest({ ...valid, institution_id: 'Bawdf' }, { ...client, developer: false }, demoOnly)).toMatchObject({
      error: { code: 'A002' },
    });
  });
});

describe('redirects', () => {
  it('adds parameters to the registered URI’s own query', () => {
    expect(redirectWith('https://shop.example/cb?tenant=7', { code: 'a b', state: 's&t' })).toBe('https://shop.example/cb?tenant=7&code=a+b&state=s%26t');
    expect(redirectWith('com.shop.app:/oauth', { code: 'c' })).toBe('com.shop.app:/oauth?code=c');
  });

  it('registers absolute URIs without fragment or script scheme', () => {
    expect(redirectUriProblem('https://shop.example/cb')).toBeUndefined();
    expect(redirectUriProblem('com.shop.app:/oauth')).toBeUndefined();
    expect(redirectUriProblem('https://shop.example/cb#x')).toContain('fragment');
    expect(redirectUriProblem('javascript:alert(1)')).toBeDefined();
    expect(redirectUriProblem('/relative')).toBeDefined();
    expect(redirectUriProblem(`https://shop.example/${'a'.repeat(1024)}`)).toContain('1024');
  });

  it('names the CSP source of the redirect: its origin, or its scheme for apps', () => {
    expect(cspSourceOf('https://shop.example:8443/cb?x=1')).toBe('https://shop.example:8443');
    expect(cspSourceOf('com.shop.app:/oauth')).toBe('com.shop.app:');
  });

  it('writes custom in x-custom as itself when it is plain text, percent-encoded otherwise, always decodable', () => {
    for (const value of ['order 42', 'a%b', ' edge ', 'línea\nnueva', '😀', 'x'.repeat(300)]) {
      const header = customHeaderValue(value);
      expect(header, value).toMatch(/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/);
      expect(decodeURIComponent(header)).toBe(value);
    }
    expect(customHeaderValue('order 42')).toBe('order 42');
  });
});

describe('token claims', () => {
  const now = new Date('2026-01-01T00:00:00Z');

  it('makes one-year access tokens for the account, with custom only when sent', () => {
    const claims = accessTokenClaims({ issuer: 'https://q.example', receiverId: 123456, jti: 'j', now, scope: 'api', custom: null });
    expect(claims).toEqual({
      iss: 'https://q.example',
      aud: 'https://q.example',
      sub: '123456',
      client_id: '123456',
      iat: 1767225600,
      exp: 1767225600 + 31536000,
      jti: 'j',
      scope: 'api',
    });
    expect(accessTokenClaims({ issuer: 'i', receiverId: 1, jti: 'j', now, scope: 'api', custom: 'c' }).custom).toBe('c');
  });

  it('makes id_tokens for the client with the nonce when sent', () => {
    const claims = idTokenClaims({ issuer: 'i', clientId: 123456, subject: 's', now, authTime: now, nonce: 'n', custom: null });
    expect(claims).toMatchObject({ iss: 'i', aud: '123456', sub: 's', nonce: 'n' });
    expect(idTokenClaims({ issuer: 'i', clientId: 1, subject: 's', now, authTime: now, nonce: null, custom: null }).nonce).toBeUndefined();
  });

  it('grants client credentials the api scope, doubting a scope it does not know (RFC 6749 §3.3)', () => {
    for (const scope of [undefined, '', 'api', 'openid api', 'api  openid']) {
      const doubts: FieldError[] = [];
      expect(clientCredentialsScope(scope, doubts), scope).toBe('api');
      expect(doubts, scope).toEqual([]);
    }
    const doubts: FieldError[] = [];
    expect(clientCredentialsScope('api admin', doubts)).toBe('api');
    expect(doubts).toEqual([{ field: 'scope', message: 'names a scope Quipu does not know: only api is granted' }]);
  });
});
