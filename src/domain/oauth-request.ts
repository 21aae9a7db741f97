// The authorization request (GET /oauth2/authorize) and its rules, in the order that decides who
// hears about a problem: a bad client_id or redirect_uri is shown to the user and never redirected
// to (that would make the server an open redirector); every later problem is redirected to the
// registered redirect_uri as A002, and only a request with every parameter right can hear E201
// (an institution without connector).
import type { FieldError } from './errors.js';
import { type FlowError, flowError } from './oauth-errors.js';
import { institutionAvailability, signInFailureError } from './oauth-institution.js';
import { isPkceMethod, isPkceText, type PkceChallenge, type PkceRule } from './oauth-pkce.js';

export const RESPONSE_MODES = ['query', 'form_post'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

/** The contract: scope is always `openid api`. */
export const FLOW_SCOPES = ['openid', 'api'] as const;
export const FLOW_SCOPE = FLOW_SCOPES.join(' ');

/** The contract's scopes, in any order and spacing: RFC 6749 §3.3 makes scope an unordered, space-separated list. */
function isFlowScope(scope: string): boolean {
  const tokens = scope.split(' ').filter((token) => token !== '');
  return tokens.length === FLOW_SCOPES.length && FLOW_SCOPES.every((name) => tokens.includes(name));
}

/** Longest state and nonce accepted: they travel in URLs and come back in redirects and tokens. */
export const MAX_STATE_LENGTH = 1024;

/**
 * Longest custom accepted. It becomes a claim of the access token, and the token travels in a
 * request header of every API call: an unbounded custom would buy tokens the API refuses (431).
 */
export const MAX_CUSTOM_LENGTH = 1024;

export interface AuthorizationRequest {
  clientId: number;
  redirectUri: string;
  responseMode: ResponseMode;
  state: string | null;
  nonce: string | null;
  custom: string | null;
  institutionId: string;
  pkce: PkceChallenge | null;
}

/** What the rules need to know about the client named by client_id. */
export interface ClientView {
  receiverId: number;
  /** A developer-mode account on a sandbox installation: only its flows may sign in at the test bank. */
  developer: boolean;
  redirectUris: readonly string[];
}

/** Whether Quipu can drive a sign-in at this bank. */
export type HasConnector = (bankId: string) => boolean;

export type AuthorizationCheck =
  | { outcome: 'refused'; parameter: 'client_id' | 'redirect_uri'; message: string }
  /** state and custom are echoed (in the redirect and in x-custom) only when they kept their own rules. */
  | { outcome: 'redirect-error'; redirectUri: string; state: string | null; custom: string | null; error: FlowError }
  | { outcome: 'ok'; request: AuthorizationRequest };

export type Query = Record<string, string | string[] | undefined>;

const PARAMETERS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
  'state',
  'nonce',
  'custom',
  'institution_id',
  'code_challenge',
  'code_challenge_method',
];

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? undefined : value;
}

/** A receiver id as client_id: digits only, within the exact integer range. */
export function parseClientId(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

/** A state to send back: one that was sent (empty is not, see `sentText`) within its length. */
const isStateText = (value: string) => value !== '' && value.length <= MAX_STATE_LENGTH;
const isCustomText = (value: string) => value.length <= MAX_CUSTOM_LENGTH;

function a002(description: string, error?: FlowError['error']): FlowError {
  return flowError('A002', description, error);
}

/** `doubts`: what was accepted as a likely slip (an empty state, the scopes in another order). */
function requestProblem(
  query: Query,
  client: ClientView,
  hasConnector: HasConnector,
  doubts: FieldError[],
  pkceRule: PkceRule,
): FlowError | AuthorizationRequest {
  for (const name of PARAMETERS) if (Array.isArray(query[name])) return a002(`${name} must be sent once`);
  const get = (name: string) => single(query, name);
  // A library sends an unset state or nonce as empty text: there is nothing to send back or to bind.
  const sentText = (name: string) => {
    const value = get(name);
    if (value !== '') return value;
    doubts.push({ field: name, message: 'is empty: read as not sent' });
    return undefined;
  };
  const responseType = get('response_type');
  if (responseType === undefined) return a002('response_type is required');
  if (responseType !== 'code') return a002('response_type must be code', 'unsupported_response_type');
  const responseMode = get('response_mode');
  if (responseMode === undefined) return a002('response_mode is required');
  if (!(RESPONSE_MODES as readonly string[]).includes(responseMode)) return a002('response_mode must be query or form_post');
  const scope = get('scope');
  if (scope === undefined) return a002('scope is required', 'invalid_scope');
  if (!isFlowScope(scope)) return a002(`scope must be "${FLOW_SCOPE}"`, 'invalid_scope');
  // The contract spells the value out ("always `openid api`"): another spelling may not work elsewhere.
  if (scope !== FLOW_SCOPE) doubts.push({ field: 'scope', message: `is read as "${FLOW_SCOPE}", as the contract writes it` });
  const state = sentText('state');
  const nonce = sentText('nonce');
  for (const [name, value] of [
    ['state', state],
    ['nonce', nonce],
  ] as const) {
    if (value !== undefined && !isStateText(value)) return a002(`${name} must be at most ${MAX_STATE_LENGTH} characters`);
  }
  const custom = get('custom');
  if (custom !== undefined && !isCustomText(custom)) return a002(`custom must be at most ${MAX_CUSTOM_LENGTH} characters`);
  const institutionId = get('institution_id');
  if (institutionId === undefined || institutionId === '') return a002('institution_id is required');
  const availability = institutionAvailability(institutionId, client.developer, hasConnector);
  if (availability === 'unknown') return a002('institution_id is not a supported institution');
  const challenge = get('code_challenge');
  const method = get('code_challenge_method');
  let pkce: PkceChallenge | null = null;
  if (pkceRule === 's256' && challenge === undefined) return a002('code_challenge is required: this installation requires PKCE with S256');
  if (pkceRule === 's256' && method !== 'S256') return a002('code_challenge_method must be S256 on this installation');
  if (challenge !== undefined) {
    if (!isPkceText(challenge)) return a002('code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
    // RFC 7636: without a method the challenge is plain.
    const chosen = method ?? 'plain';
    if (!isPkceMethod(chosen)) return a002('code_challenge_method must be S256 or plain');
    pkce = { challenge, method: chosen };
  } else if (method !== undefined) {
    return a002('code_challenge_method was sent without code_challenge');
  }
  // Last, once every parameter is known to be right: E201 tells the client to stop trying, which
  // must not hide a request it can and should fix (A002).
  if (availability === 'no-connector') return signInFailureError('no-connector');
  return {
    clientId: client.receiverId,
    redirectUri: get('redirect_uri')!,
    responseMode: responseMode as ResponseMode,
    state: state ?? null,
    nonce: nonce ?? null,
    custom: custom ?? null,
    institutionId,
    pkce,
  };
}

/**
 * Applies every rule of the authorization request; `client` is undefined when client_id names no
 * account. Values accepted as likely slips are added to `doubts`.
 */
export function checkAuthorizationRequest(
  query: Query,
  client: ClientView | undefined,
  hasConnector: HasConnector,
  doubts: FieldError[] = [],
  pkceRule: PkceRule = 'optional',
): AuthorizationCheck {
  if (!client) return { outcome: 'refused', parameter: 'client_id', message: 'client_id does not name a registered client' };
  const redirectUri = single(query, 'redirect_uri');
  if (redirectUri === undefined || redirectUri === '')
    return { outcome: 'refused', parameter: 'redirect_uri', message: 'redirect_uri is required (sent once)' };
  // Exact string comparison: no normalisation, prefix or pattern can widen what was registered.
  if (!client.redirectUris.includes(redirectUri))
    return { outcome: 'refused', parameter: 'redirect_uri', message: 'redirect_uri is not registered for this client' };
  const checked = requestProblem(query, client, hasConnector, doubts, pkceRule);
  if ('code' in checked) {
    const echoed = (name: string, valid: (value: string) => boolean) => {
      const value = single(query, name);
      return value !== undefined && valid(value) ? value : null;
    };
    return { outcome: 'redirect-error', redirectUri, state: echoed('state', isStateText), custom: echoed('custom', isCustomText), error: checked };
  }
  return { outcome: 'ok', request: checked };
}
