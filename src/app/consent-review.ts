// A payer reviews and withdraws the consents they gave (ASVS 10.7.3). The review works like an
// authorization flow without a client: one browser opens it for one institution and keeps its
// secret (only the hash is stored, and every step asks the browser for it back), the payer signs
// in there through the flow's own sign-in step (signInForFlow: one attempt per review, as one per
// flow, so a failed sign-in ends the review), and then sees the consents of that institution user,
// and no one else's, with a live token. Withdrawing one revokes every token issued from it and
// fails the client's unfinished flows for that user (withdraw-consents.ts), and is audited.
// Anyone may open a review, unauthenticated, and each one is a row kept a day and a sign-in at the
// institution: reviews opened are counted per address (domain/sign-in-throttle.ts), past a few
// they wait, and only the institutions of this installation are offered (the test bank only where
// SANDBOX is on).
import type { PayerCredentials } from '../bank/connector.js';
import { banksFor } from '../domain/banks.js';
import { fieldError, notFound } from '../domain/errors.js';
import type { FlowErrorCode } from '../domain/oauth-errors.js';
import { FLOW_STEP_TIMEOUT_MS, flowSecretHash, tokenLives } from '../domain/oauth-tokens.js';
import { consentReviewSubject } from '../domain/sign-in-throttle.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { advanceFlow } from '../store/browser-flow-step.js';
import { findConsentOfUser, findReview, insertReview, type LiveConsent, unexpiredConsentTokens } from '../store/oauth-consent-reviews.js';
import type { OAuthConsentReviewRow } from '../store/schema.js';
import { reserveAttempt } from './attempt-throttle.js';
import { audit } from './audit.js';
import { type BrowserSecret, startedIn } from './authorization-steps.js';
import type { AppContext } from './context.js';
import { signInForFlow } from './institution-sign-in.js';
import { withdrawConsents } from './withdraw-consents.js';

export type { LiveConsent };

export type ReviewAnswer =
  | { kind: 'login'; reviewId: string; institutionId: string }
  | { kind: 'consents'; reviewId: string; institutionId: string; userId: string; consents: LiveConsent[] }
  /** The sign-in failed (with the flow's error code) or the review ran out of time: the payer starts again. */
  | { kind: 'ended'; code: FlowErrorCode | 'timeout' }
  | { kind: 'other-browser' };

/**
 * The institutions a payer can sign in at: those with a connector in this process, the test bank
 * only on a sandbox installation (a production one may offer none).
 */
export function reviewInstitutions(ctx: AppContext): { bankId: string; name: string }[] {
  return banksFor(ctx.config.sandbox)
    .filter((bank) => ctx.banks.connectorFor(bank.bankId) !== undefined)
    .map(({ bankId, name }) => ({ bankId, name }));
}

/** A review opened from `address`, or how long that address must wait before it opens another. */
export async function openReview(
  ctx: AppContext,
  institutionId: string,
  address: string,
): Promise<{ reviewId: string; browserSecret: string } | { retryAfterMs: number }> {
  if (!reviewInstitutions(ctx).some((bank) => bank.bankId === institutionId)) throw fieldError('institution_id', 'is not an institution you can sign in at');
  const retryAfterMs = await reserveAttempt(ctx.db, [consentReviewSubject(address)], wallClockMs(ctx.clock));
  if (retryAfterMs > 0) return { retryAfterMs };
  const now = ctx.clock.now().getTime();
  const reviewId = Buffer.from(ctx.random(18)).toString('base64url');
  const browserSecret = Buffer.from(ctx.random(32)).toString('base64url');
  await insertReview(ctx.db, {
    review_id: reviewId,
    institution_id: institutionId,
    browser_hash: flowSecretHash(browserSecret),
    status: 'login',
    user_id: null,
    step_deadline: now + FLOW_STEP_TIMEOUT_MS,
    created_at: now,
  });
  return { reviewId, browserSecret };
}

async function load(ctx: AppContext, reviewId: string, browser: BrowserSecret): Promise<OAuthConsentReviewRow | 'other-browser'> {
  const row = await findReview(ctx.db, reviewId);
  if (!row) throw notFound('Consent review');
  return startedIn(row, browser) ? row : 'other-browser';
}

const OTHER_BROWSER: ReviewAnswer = { kind: 'other-browser' };

/**
 * The user's consents at the institution with a token that lives, as a bearer token is judged
 * (domain/oauth-tokens.ts): one ended by a rotation of its account's secret, or by its longest
 * life, is not shown as access the client still has. The order is the store's, consent given last first.
 */
async function liveConsents(ctx: AppContext, institutionId: string, userId: string, now: number): Promise<LiveConsent[]> {
  const wallNow = wallClockMs(ctx.clocks);
  const live = new Map<string, LiveConsent>();
  for (const { secret_generation, wall_issued_at, ...consent } of await unexpiredConsentTokens(ctx.db, institutionId, userId, now)) {
    const account = await ctx.merchants.byReceiverId(consent.receiverId);
    if (!account || !tokenLives({ secret_generation, wall_issued_at }, account, wallNow)) continue;
    const known = live.get(consent.consentId);
    if (!known || known.expiresAt < consent.expiresAt) live.set(consent.consentId, consent);
  }
  return [...live.values()];
}

/** The review's current step; a review past its step's deadline ends. */
async function current(ctx: AppContext, row: OAuthConsentReviewRow): Promise<ReviewAnswer> {
  if (row.status === 'failed') return { kind: 'ended', code: 'timeout' };
  const now = ctx.clock.now().getTime();
  if (now > row.step_deadline) {
    await advanceFlow(ctx.db, 'oauth_consent_reviews', row.review_id, row.status, { status: 'failed' });
    return { kind: 'ended', code: 'timeout' };
  }
  if (row.status === 'login') return { kind: 'login', reviewId: row.review_id, institutionId: row.institution_id };
  const consents = await liveConsents(ctx, row.institution_id, row.user_id!, now);
  return { kind: 'consents', reviewId: row.review_id, institutionId: row.institution_id, userId: row.user_id!, consents };
}

export async function showReview(ctx: AppContext, reviewId: string, browser: BrowserSecret): Promise<ReviewAnswer> {
  const row = await load(ctx, reviewId, browser);
  return row === 'other-browser' ? OTHER_BROWSER : current(ctx, row);
}

export async function reviewSignIn(ctx: AppContext, reviewId: string, browser: BrowserSecret, credentials: PayerCredentials): Promise<ReviewAnswer> {
  const row = await load(ctx, reviewId, browser);
  if (row === 'other-browser') return OTHER_BROWSER;
  const step = await current(ctx, row);
  if (step.kind !== 'login') return step;
  const login = await signInForFlow(ctx, row.institution_id, credentials);
  if (!login.ok) {
    await advanceFlow(ctx.db, 'oauth_consent_reviews', reviewId, 'login', { status: 'failed' });
    return { kind: 'ended', code: login.error.code };
  }
  const now = ctx.clock.now().getTime();
  // Of two concurrent sign-ins one moves the review; both then show what it holds.
  await advanceFlow(ctx.db, 'oauth_consent_reviews', reviewId, 'login', { status: 'review', user_id: login.userId, step_deadline: now + FLOW_STEP_TIMEOUT_MS });
  return showReview(ctx, reviewId, browser);
}

/** Withdraws one of the signed-in user's consents; another's, or an unknown one, is not found. */
export async function withdrawConsent(ctx: AppContext, reviewId: string, browser: BrowserSecret, consentId: string, address: string): Promise<ReviewAnswer> {
  const row = await load(ctx, reviewId, browser);
  if (row === 'other-browser') return OTHER_BROWSER;
  const step = await current(ctx, row);
  if (step.kind !== 'consents') return step;
  const consent = await findConsentOfUser(ctx.db, consentId, step.institutionId, step.userId);
  if (!consent) throw notFound('Consent');
  const revoked = await withdrawConsents(ctx, step.institutionId, step.userId, Number(consent.receiver_id));
  ctx.log.info({ consentId, receiverId: consent.receiver_id, revokedTokens: revoked }, 'consent withdrawn by the payer');
  await audit(ctx, {
    actorKind: 'payer',
    actor: consent.subject,
    receiverId: Number(consent.receiver_id),
    action: 'oauth.consent.withdraw',
    target: consentId,
    outcome: 'ok',
    address,
  });
  return current(ctx, row);
}
