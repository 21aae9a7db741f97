// POST /oauth2/token and POST /oauth2/revoke: form-urlencoded requests, the client authenticated
// with HTTP Basic or with client_id/client_secret in the form (never both methods), and RFC 6749 error
// bodies: {"error": "...", "error_description": "..."}; a bad client is 401 with WWW-Authenticate,
// and an address past its failed credentials, or the rate limit, 429 `slow_down` with Retry-After.
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AuthenticatedClient, authenticateClient, type ClientCredentials } from '../../app/authenticate-client.js';
import { issueClientCredentialsToken, redeemAuthorizationCode } from '../../app/issue-token.js';
import { revokeToken } from '../../app/revoke-token.js';
import { DomainError, type FieldError } from '../../domain/errors.js';
import type { KeyRing } from '../../app/token-keys.js';
import { TokenEndpointError } from '../../domain/oauth-errors.js';
import { customHeaderValue } from '../../domain/oauth-redirect.js';
import { refuseWhileLimited, settleCredential } from '../credential-failures.js';
import { warnAbout } from '../warnings.js';

const FORM = 'application/x-www-form-urlencoded';
type Form = Record<string, string | undefined>;

/** The form's parameters; RFC 6749 3.2: a parameter may not be repeated. */
function readForm(request: FastifyRequest): Form {
  if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith(FORM)) {
    throw new TokenEndpointError('invalid_request', `the body must be ${FORM}`);
  }
  const form: Form = {};
  for (const [name, value] of Object.entries((request.body ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') throw new TokenEndpointError('invalid_request', `${name} must be sent once`);
    form[name] = value;
  }
  return form;
}

// RFC 6749 2.3.1: client_id and client_secret are form-encoded before they are joined and encoded in base64.
function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new TokenEndpointError('invalid_client', 'Client authentication failed');
  }
}

/** The client of an HTTP Basic header; 'malformed' when the header is Basic without a client_id:client_secret pair. */
function basicCredentials(header: string | undefined): ClientCredentials | 'malformed' | undefined {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
}

function clientCredentials(request: FastifyRequest, form: Form): ClientCredentials | undefined {
  const basic = basicCredentials(request.headers.authorization);
  if (basic === undefined) {
    const inForm = form.client_id !== undefined || form.client_secret !== undefined;
    return inForm ? { clientId: form.client_id ?? '', clientSecret: form.client_secret ?? '' } : undefined;
  }
  // RFC 6749 2.3.1 forbids two authentication methods, which a secret in the form would be; a
  // client_id in the form only names the client (some libraries always send it), so it may come
  // with Basic as long as it names the same client.
  if (form.client_secret !== undefined) throw new TokenEndpointError('invalid_request', 'authenticate the client with HTTP Basic or with the form, not both');
  if (basic === 'malformed') return undefined;
  if (form.client_id !== undefined && form.client_id !== basic.clientId)
    throw new TokenEndpointError('invalid_request', 'client_id in the form is not the client of the Basic credentials');
  return basic;
}

/** The client, its secret counted against the client's address as any API's credential is (../credential-failures.ts). */
async function checkedClient(request: FastifyRequest, reply: FastifyReply, form: Form): Promise<AuthenticatedClient> {
  const credentials = clientCredentials(request, form);
  // Without credentials nothing is guessed: refused, not counted.
  if (credentials === undefined) return authenticateClient(request.ctx, credentials);
  refuseWhileLimited(request, reply);
  const client = await authenticateClient(request.ctx, credentials).catch((error: unknown) => {
    if (error instanceof TokenEndpointError && error.code === 'invalid_client') settleCredential(request, reply, false);
    throw error;
  });
  settleCredential(request, reply, true);
  return client;
}

function tokenErrorHandler(error: FastifyError | TokenEndpointError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('cache-control', 'no-store');
  if (error instanceof TokenEndpointError) {
    if (error.code === 'invalid_client') reply.code(401).header('www-authenticate', 'Basic realm="quipu", charset="UTF-8"');
    else reply.code(400);
    return reply.send({ error: error.code, error_description: error.description });
  }
  // Of the error codes registered for the token endpoint, RFC 8628's is the one that asks a client to wait.
  if (error instanceof DomainError && error.kind === 'rate_limited') return reply.code(429).send({ error: 'slow_down', error_description: error.message });
  // A refused field (a NUL in a parameter) is a malformed request in the endpoint's own words.
  if (error instanceof DomainError && error.kind === 'validation') return reply.code(400).send({ error: 'invalid_request', error_description: error.message });
  const status = error.statusCode ?? 500;
  if (status < 500) return reply.code(status === 413 ? 413 : 400).send({ error: 'invalid_request', error_description: error.message });
  request.log.error({ err: error }, 'token endpoint failed');
  return reply.code(500).send({ error: 'server_error', error_description: `request ${request.id} failed` });
}

export async function tokenRoutes(app: FastifyInstance, { keys }: { keys: KeyRing }): Promise<void> {
  if (!app.hasContentTypeParser(FORM)) await app.register(formbody);
  app.setErrorHandler(tokenErrorHandler);
  const tags = ['OAuth 2.0'];

  app.post('/oauth2/token', { schema: { tags, summary: 'Issue an access token (client_credentials or authorization_code)' } }, async (request, reply) => {
    const form = readForm(request);
    const client = await checkedClient(request, reply, form);
    const doubts: FieldError[] = [];
    let issued;
    switch (form.grant_type) {
      case 'client_credentials':
        issued = await issueClientCredentialsToken(request.ctx, keys, client, form.scope, doubts);
        break;
      case 'authorization_code':
        issued = await redeemAuthorizationCode(request.ctx, keys, client, {
          code: form.code,
          redirectUri: form.redirect_uri,
          codeVerifier: form.code_verifier,
        });
        break;
      case undefined:
        throw new TokenEndpointError('invalid_request', 'grant_type is required');
      default:
        throw new TokenEndpointError('unsupported_grant_type', 'grant_type must be client_credentials or authorization_code');
    }
    warnAbout(request, reply, doubts, client.merchant.developer);
    if (issued.custom !== null) reply.header('x-custom', customHeaderValue(issued.custom));
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(issued.body);
  });

  app.post('/oauth2/revoke', { schema: { tags, summary: 'Revoke an access token (RFC 7009)' } }, async (request, reply) => {
    const form = readForm(request);
    const client = await checkedClient(request, reply, form);
    if (!form.token) throw new TokenEndpointError('invalid_request', 'token is required');
    await revokeToken(request.ctx, keys, client.merchant, form.token);
    return reply.code(200).header('cache-control', 'no-store').send();
  });
}
