// Every route a running server has registered, read from Fastify's own route tree, so a test can
// cover routes nobody listed for it.
import type { FastifyInstance } from 'fastify';

export interface RegisteredRoute {
  method: string;
  /** As registered, e.g. /v3/payments/:id */
  url: string;
}

/**
 * printRoutes({ commonPrefix: false }) draws one node per line, four characters of indentation per
 * level, each node the part of the URL after its parent's, followed by its methods in parentheses
 * when it is a route: `├── /v3/payments (POST)` then `│   └── /:id (GET, HEAD, DELETE)`.
 */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    parents.length = depth;
    const url = [...parents, node[2]!].join('');
    parents.push(node[2]!);
    for (const method of node[3]?.split(', ') ?? []) routes.push({ method, url });
  }
  return routes;
}

/** A path that reaches the route, its parameters filled with `value`. */
export function concretePath(url: string, value = 'x'): string {
  return url.replace(/:[^/]+/g, value).replace(/\*/g, value);
}
