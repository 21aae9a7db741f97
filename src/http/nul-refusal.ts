// No text Quipu stores or looks up may hold a NUL (U+0000): PostgreSQL cannot take one in a text
// value, and a NUL that SQLite keeps would read differently to every other system. One hook on
// every route refuses it in the body, the query string and the path, whatever the surface, before
// anything reads the request: a field is a 400 naming it, a path id is an id nothing has (404).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { DomainError, fieldError } from '../domain/errors.js';

const NUL = '\u0000';
const MESSAGE = 'must not contain the NUL character (U+0000)';

/** The dotted path of the first value or member name in `value` holding a NUL, if any. */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], path ? `${path}.${i}` : String(i));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key in value) {
    // A member name with a NUL cannot be echoed as a field name: its object is named instead.
    if (key.includes(NUL)) return path || 'body';
    const found = nulPath((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Callback form: it runs on every request and never waits. A NUL reaches the path or the query only
 * percent-encoded (Node's parser refuses a request line holding the byte itself), so a URL without
 * `%00` has none to look for, and a GET (no body) is one search of its URL.
 */
function refuseNul(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const inUrl = request.url.includes('%00');
  if (inUrl && nulPath(request.params, '') !== undefined) return done(new DomainError('not_found', 'Not found'));
  const field = (inUrl ? nulPath(request.query, '') : undefined) ?? nulPath(request.body, '');
  done(field === undefined ? undefined : fieldError(field, MESSAGE));
}

/**
 * An onRoute hook: the check is the last of the route's preValidation hooks, so it runs after each
 * surface's own (a v2 signature is verified before anything is said about the fields) and before
 * validation and any handler.
 */
export function refuseNulOn(route: RouteOptions): void {
  route.preValidation = [...[route.preValidation ?? []].flat(), refuseNul];
}
