// The authorization server: token and revocation endpoints, discovery and JWKS, the authorization
// flow's pages and, with SANDBOX on, the credential-change trigger. Each part has its own scope
// (its own parsers and error shapes).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { KeyRing } from '../../app/token-keys.js';
import { secureCookies } from '../cookies.js';
import { discoveryRoutes } from './discovery.js';
import { authorizationPages } from './pages.js';
import { oauthSandboxRoutes } from './sandbox.js';
import { tokenRoutes } from './token.js';

export async function oauthApi(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const keys = new KeyRing(ctx.db, ctx.secrets, ctx.clocks, ctx.feed);
  await app.register(tokenRoutes, { keys });
  await app.register(discoveryRoutes, { keys });
  await app.register(authorizationPages, { secure: secureCookies(ctx.config) });
  if (ctx.config.sandbox) await app.register(oauthSandboxRoutes);
}
