// The steps of an open authorization flow: the user signs in at the institution, then consents or
// refuses, and the client gets the code (or the error) at its redirect_uri. Each step moves the
// flow on only from the status it read, so a double submission changes nothing twice. Every step
// has FLOW_STEP_TIMEOUT_MS on the developer clock: a user who never signs in ends in A003, one who
// never answers the consent page in E001. Each step first checks that it comes from the browser that
// started the flow (its secret, see start-authorization.ts): any other browser is refused and the
// flow does not change, so one who learnt the flow's address can neither see the signed-in user
// nor consent in their place.
import type { PayerCredentials } from '../bank/connector.js';
import { notFound } from '../domain/errors.js';
import { newUuid } from '../domain/ids.js';
import { type FlowError, flowError, flowErrorParams } from '../domain/oauth-errors.js';
import { CODE_LIFETIME_MS, FLOW_STEP_TIMEOUT_MS, flowSecretHash } from '../domain/oauth-tokens.js';
import { advanceFlow } from '../store/browser-flow-step.js';
import { findAuthorization, upsertConsent } from '../store/oauth-authorizations.js';
import type { OAuthAuthorizationRow } from '../store/schema.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';
import { signInForFlow } from './institution-sign-in.js';

/** What the user sees of a flow that waits for them. */
export interface FlowPage {
  authorizationId: string;
  step: 'login' | 'consent';
  clientName: string;
  institutionId: string;
  /** The user who signed in (consent step). */
  userId: string | null;
  redirectUri: string;
}

/** An answer for the client, carried by the browser: a redirect with query parameters or an auto-submitted form. */
export interface Delivery {
  mode: 'query' | 'form_post';
  redirectUri: string;
  params: Record<string, string>;
  /** The request's custom value, echoed in the x-custom header. */
  custom: string | null;
}

export type FlowAnswer =
  { kind: 'page'; page: FlowPage } | { kind: 'deliver'; delivery: Delivery } | { kind: 'finished'; redirectUri: string } | { kind: 'other-browser' };

/** The flow's secret as the browser presents it (undefined when it sent none). */
export type BrowserSecret = string | undefined;

/** Whether `browser` holds the secret whose hash a flow (or a consent review) keeps. */
export function startedIn(row: { browser_hash: string | null }, browser: BrowserSecret): boolean {
  return browser !== undefined && row.browser_hash !== null && flowSecretHash(browser) === row.browser_hash;
}

/** The flow, when `browser` is the one that started it. */
async function load(ctx: AppContext, authorizationId: string, browser: BrowserSecret): Promise<OAuthAuthorizationRow | 'other-browser'> {
  const row = await findAuthorization(ctx.db, authorizationId);
  if (!row) throw notFound('Authorization');
  return startedIn(row, browser) ? row : 'other-browser';
}

const OTHER_BROWSER: FlowAnswer = { kind: 'other-browser' };

async function page(ctx: AppContext, row: OAuthAuthorizationRow): Promise<FlowAnswer> {
  const client = await ctx.merchants.byReceiverId(row.receiver_id);
  return {
    kind: 'page',
    page: {
      authorizationId: row.authorization_id,
      step: row.status === 'consent' ? 'consent' : 'login',
      clientName: client?.name ?? String(row.receiver_id),
      institutionId: row.institution_id,
      userId: row.user_id,
      redirectUri: row.redirect_uri,
    },
  };
}

const finished = (row: OAuthAuthorizationRow): FlowAnswer => ({ kind: 'finished', redirectUri: row.redirect_uri });

/** A flow error for the client: as query parameters whatever the response_mode (the contract's wording), with the request's custom in x-custom. */
export function errorDelivery(redirectUri: string, error: FlowError, echoed: { state: string | null; custom: string | null }): Delivery {
  return { mode: 'query', redirectUri, params: flowErrorParams(error, echoed.state), custom: echoed.custom };
}

/** Ends the flow with an error for the client. */
async function failFlow(ctx: AppContext, row: OAuthAuthorizationRow, error: FlowError): Promise<FlowAnswer> {
  const moved = await advanceFlow(ctx.db, 'oauth_authorizations', row.authorization_id, row.status, { status: 'failed' });
  if (!moved) return finished(row);
  return { kind: 'deliver', delivery: errorDelivery(row.redirect_uri, error, row) };
}

function timedOut(ctx: AppContext, row: OAuthAuthorizationRow): boolean {
  return ctx.clock.now().getTime() > row.step_deadline;
}

const TIMEOUTS = {
  login: flowError('A003', 'The user did not start the authentication in time'),
  consent: flowError('E001', 'The user did not answer the consent in time'),
};

/** The page of the flow's current step, or its end. */
export async function showFlow(ctx: AppContext, authorizationId: string, browser: BrowserSecret): Promise<FlowAnswer> {
  const row = await load(ctx, authorizationId, browser);
  if (row === 'other-browser') return OTHER_BROWSER;
  if (row.status !== 'login' && row.status !== 'consent') return finished(row);
  if (timedOut(ctx, row)) return failFlow(ctx, row, TIMEOUTS[row.status]);
  return page(ctx, row);
}

/** The user's credentials at the institution, checked by its bank connector. */
export async function signIn(ctx: AppContext, authorizationId: string, browser: BrowserSecret, credentials: PayerCredentials): Promise<FlowAnswer> {
  const row = await load(ctx, authorizationId, browser);
  if (row === 'other-browser') return OTHER_BROWSER;
  if (row.status === 'consent') return showFlow(ctx, authorizationId, browser);
  if (row.status !== 'login') return finished(row);
  if (timedOut(ctx, row)) return failFlow(ctx, row, TIMEOUTS.login);
  const login = await signInForFlow(ctx, row.institution_id, credentials);
  if (!login.ok) return failFlow(ctx, row, login.error);
  const now = ctx.clock.now().getTime();
  const moved = await advanceFlow(ctx.db, 'oauth_authorizations', authorizationId, 'login', {
    status: 'consent',
    user_id: login.userId,
    authenticated_at: now,
    step_deadline: now + FLOW_STEP_TIMEOUT_MS,
  });
  return moved ? showFlow(ctx, authorizationId, browser) : finished(row);
}

/** The user's answer on the consent page: a code for the client, or A001. */
export async function decideConsent(ctx: AppContext, authorizationId: string, browser: BrowserSecret, allow: boolean): Promise<FlowAnswer> {
  const row = await load(ctx, authorizationId, browser);
  if (row === 'other-browser') return OTHER_BROWSER;
  if (row.status !== 'consent') return finished(row);
  if (timedOut(ctx, row)) return failFlow(ctx, row, TIMEOUTS.consent);
  if (!allow) return failFlow(ctx, row, flowError('A001', 'The user refused consent'));
  const code = Buffer.from(ctx.random(32)).toString('base64url');
  const issued = await inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now().getTime();
    const consent = await upsertConsent(trx, {
      consent_id: newUuid(ctx.random),
      receiver_id: row.receiver_id,
      institution_id: row.institution_id,
      user_id: row.user_id!,
      subject: newUuid(ctx.random),
      created_at: now,
      updated_at: now,
    });
    return advanceFlow(trx, 'oauth_authorizations', authorizationId, 'consent', {
      status: 'code',
      consent_id: consent.consent_id,
      code_hash: flowSecretHash(code),
      code_expires_at: now + CODE_LIFETIME_MS,
    });
  });
  if (!issued) return finished(row);
  const params: Record<string, string> = { code, ...(row.state !== null ? { state: row.state } : {}) };
  return {
    kind: 'deliver',
    delivery: { mode: row.response_mode === 'form_post' ? 'form_post' : 'query', redirectUri: row.redirect_uri, params, custom: row.custom },
  };
}

/** Ends a flow that hit an unexpected failure with E999, if it is still open and `browser` started it. */
export async function abortFlow(ctx: AppContext, authorizationId: string, browser: BrowserSecret): Promise<FlowAnswer | undefined> {
  const row = await findAuthorization(ctx.db, authorizationId);
  if (!row || !startedIn(row, browser) || (row.status !== 'login' && row.status !== 'consent')) return undefined;
  return failFlow(ctx, row, flowError('E999', 'The authorization could not be completed'));
}
