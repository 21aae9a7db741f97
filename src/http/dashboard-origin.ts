// With DASHBOARD_BASE_URL, the dashboard is an origin of its own (ASVS 3.5.4): its pages are
// answered only on the dashboard's host, and nothing else is answered there, so a script that ever
// ran on a payer's page, an OAuth page or the API reference shares no origin with a signed-in
// dashboard user's pages and cookies. A page asked for on the wrong host is sent to the right one
// (303: bookmarks, the dashboard's link to the API reference); any other method there is a 404
// that reaches no route. The health checks and the metrics answer on both. Whose a path is, is the
// route's that answers it, never the URL's spelling: the router decodes the path before matching,
// so `/%64ashboard/sign-in` is the dashboard's sign-in.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

const ON_EVERY_HOST = new Set(['/healthz', '/readyz', '/metrics']);

/** `/` leads to the dashboard (its sign-in), so it is the dashboard's. */
const isDashboardPath = (path: string) => path === '/' || path === '/dashboard' || path.startsWith('/dashboard/');

export function separateDashboardOrigin(app: FastifyInstance, config: Pick<Config, 'dashboardBaseUrl'>): void {
  if (config.dashboardBaseUrl === undefined) return;
  const dashboard = new URL(config.dashboardBaseUrl);
  app.addHook('onRequest', (request, reply, done) => {
    // No route (a 404) is no one's page: answered on the public host.
    const path = request.routeOptions.url ?? '';
    if (ON_EVERY_HOST.has(path)) return done();
    const dashboardPath = isDashboardPath(path);
    if (dashboardPath === (request.host.toLowerCase() === dashboard.host)) return done();
    if (request.method !== 'GET' && request.method !== 'HEAD') return void reply.code(404).send({ status: 404, message: 'Not found' });
    // The context's, read now: a process may learn its public address after the routes are built.
    const base = dashboardPath ? dashboard.origin : request.ctx.config.publicBaseUrl;
    void reply.redirect(`${base}${request.url}`, 303);
  });
}
