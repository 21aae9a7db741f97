// What is kept only for a while: idempotency keys and their answers past their expiry, OAuth
// tokens past theirs, and authorization flows older than a day that no live token refers to.
import { pruneIdempotencyKeys } from '../store/idempotency.js';
import { deleteStaleAuthorizations } from '../store/oauth-authorizations.js';
import { deleteExpiredTokens } from '../store/oauth-tokens.js';
import type { AppContext } from './context.js';

const FLOW_RETENTION_MS = 24 * 3_600_000;

export async function pruneExpired(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now().getTime();
  await pruneIdempotencyKeys(ctx.db, now);
  await deleteExpiredTokens(ctx.db, now);
  await deleteStaleAuthorizations(ctx.db, now - FLOW_RETENTION_MS);
}
