// What is kept only for a while: idempotency keys and their answers past their expiry, OAuth
// tokens past theirs or past their longest life, authorization flows older than a day that no live token refers to, consent
// reviews older than a day, the sign-in throttle's subjects once their failures are forgotten,
// audit records past their retention, finished messages with their attempt logs past theirs
// (MESSAGE_RETENTION_DAYS), and the request log past its own (REQUEST_LOG_RETENTION_DAYS).
import { pruneIdempotencyKeys } from '../store/idempotency.js';
import { deleteStaleAuthorizations } from '../store/oauth-authorizations.js';
import { deleteStaleReviews } from '../store/oauth-consent-reviews.js';
import { deleteExpiredTokens } from '../store/oauth-tokens.js';
import { MAX_TOKEN_LIFE_MS } from '../domain/oauth-tokens.js';
import { SIGN_IN_MEMORY_MS } from '../domain/sign-in-throttle.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { pruneThrottles } from '../store/sign-in-throttles.js';
import { pruneAuditLog } from './audit.js';
import { pruneMessages } from './prune-messages.js';
import { pruneRequestLogs } from './prune-request-logs.js';
import type { AppContext } from './context.js';

const FLOW_RETENTION_MS = 24 * 3_600_000;

export async function pruneExpired(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now().getTime();
  // Tokens' longest life and the throttle run on the wall clock (domain/oauth-tokens.ts, domain/sign-in-throttle.ts).
  const wallNow = wallClockMs(ctx.clock);
  await pruneIdempotencyKeys(ctx.db, now);
  await deleteExpiredTokens(ctx.db, now, wallNow - MAX_TOKEN_LIFE_MS);
  await deleteStaleAuthorizations(ctx.db, now - FLOW_RETENTION_MS);
  await deleteStaleReviews(ctx.db, now - FLOW_RETENTION_MS);
  await pruneThrottles(ctx.db, wallNow - SIGN_IN_MEMORY_MS, wallNow);
  await pruneAuditLog(ctx);
  await pruneMessages(ctx);
  await pruneRequestLogs(ctx);
}
