// Unknown JSON members on the routes that opt in (`config: { ignoreUnknownFields: true }`: v3 and
// the automatic payment API). The provider's published schemas allow them and real clients send
// them (a v3 client sends payment_id to refunds, merchant scripts send receiver_id to create), so
// they are taken out of the body before anything reads it, and named in a response header and the
// request's log line: a typo (`notfy_url`) is still visible to the developer. Everything after this
// hook (validation, the field tables, the NUL check, Idempotency-Key's comparison of bodies) sees
// the known members only, so each keeps every rule it had.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Top-level body members the body schema does not list are dropped and named, not refused. */
    ignoreUnknownFields?: boolean;
  }
}

export const IGNORED_FIELDS_HEADER = 'quipu-ignored-fields';

/** A member name may be megabytes long; a header that large would break the client reading it. */
const HEADER_LIMIT = 1024;

const SEPARATOR = ', ';

/** A lone UTF-16 surrogate (JSON can escape one into a name) cannot be percent-encoded: U+FFFD stands for it. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;

/**
 * The header's value: the names percent-encoded (a name may hold any character, a header value
 * may not; `receiver_id` stays as it is) and sorted, as many as fit in HEADER_LIMIT characters,
 * then `+N more` for the rest (a space and a `+` are never left unencoded in a name).
 */
export function ignoredFieldsHeader(names: readonly string[]): string {
  const encoded = names.map((name) => encodeURIComponent(name.replace(LONE_SURROGATE, '\uFFFD'))).sort();
  const shown: string[] = [];
  let length = 0;
  for (const name of encoded) {
    const next = length + (shown.length > 0 ? SEPARATOR.length : 0) + name.length;
    if (next > HEADER_LIMIT) break;
    shown.push(name);
    length = next;
  }
  // The count of the rest must fit too: it takes the place of as many names as it needs.
  for (;;) {
    const value = shown.length === encoded.length ? shown : [...shown, `+${encoded.length - shown.length} more`];
    const text = value.join(SEPARATOR);
    if (text.length <= HEADER_LIMIT) return text;
    shown.pop();
  }
}

function ignoreUnknown(known: ReadonlySet<string>) {
  return function ignoreUnknownMembers(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const body = request.body;
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
      const ignored = Object.keys(body).filter((name) => !known.has(name));
      for (const name of ignored) delete (body as Record<string, unknown>)[name];
      if (ignored.length > 0) reply.header(IGNORED_FIELDS_HEADER, ignoredFieldsHeader(ignored));
    }
    done();
  };
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  description?: string;
}

/**
 * An onRoute hook, registered before the NUL refusal so that a NUL inside an ignored member is
 * ignored with it. The route's body schema is published open (no `additionalProperties: false`),
 * as the provider's is.
 */
export function ignoreUnknownFieldsOn(route: RouteOptions): void {
  if (!route.config?.ignoreUnknownFields) return;
  const { additionalProperties: _refused, ...body } = (route.schema?.body ?? {}) as ObjectSchema;
  const description = body.description ?? 'Members not listed here are ignored and named in the Quipu-Ignored-Fields response header';
  route.schema = { ...route.schema, body: { ...body, description } };
  route.preValidation = [...[route.preValidation ?? []].flat(), ignoreUnknown(new Set(Object.keys(body.properties ?? {})))];
}
