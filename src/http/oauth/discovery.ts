// OpenID Connect discovery and the JWKS, so standard clients (openid-client among them) need
// nothing but the issuer URL. The issuer is the public base URL.
import type { FastifyInstance } from 'fastify';
import type { KeyRing } from '../../app/token-keys.js';
import { RESPONSE_MODES } from '../../domain/oauth-request.js';
import { type PkceRule, pkceMethodsOf } from '../../domain/oauth-pkce.js';
import { TOKEN_ALGORITHM } from '../../domain/oauth-tokens.js';

export const JWKS_PATH = '/oauth2/jwks';

export function discoveryDocument(issuer: string, pkceRule: PkceRule) {
  const clientAuth = ['client_secret_basic', 'client_secret_post'];
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth2/authorize`,
    token_endpoint: `${issuer}/oauth2/token`,
    revocation_endpoint: `${issuer}/oauth2/revoke`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    scopes_supported: ['openid', 'api'],
    response_types_supported: ['code'],
    response_modes_supported: [...RESPONSE_MODES],
    grant_types_supported: ['authorization_code', 'client_credentials'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: [TOKEN_ALGORITHM],
    token_endpoint_auth_methods_supported: clientAuth,
    revocation_endpoint_auth_methods_supported: clientAuth,
    code_challenge_methods_supported: [...pkceMethodsOf(pkceRule)],
    claims_supported: ['iss', 'sub', 'aud', 'iat', 'exp', 'auth_time', 'nonce', 'custom'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  };
}

export async function discoveryRoutes(app: FastifyInstance, { keys }: { keys: KeyRing }): Promise<void> {
  const tags = ['OAuth 2.0'];
  app.get('/.well-known/openid-configuration', { schema: { tags, summary: 'OpenID Connect discovery document' } }, async (request, reply) =>
    reply.header('cache-control', 'public, max-age=300').send(discoveryDocument(request.ctx.config.publicBaseUrl, request.ctx.config.oauthPkce)),
  );
  app.get(JWKS_PATH, { schema: { tags, summary: 'Public keys that verify issued tokens (current and previous)' } }, async (_request, reply) =>
    // Short-lived: after a rotation, verifiers must see the new key soon.
    reply
      .header('cache-control', 'public, max-age=60')
      .type('application/jwk-set+json')
      .send(await keys.jwks()),
  );
}
