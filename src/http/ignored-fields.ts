// Unknown JSON members and form fields on the routes that opt in (`config: { ignoreUnknownFields:
// true }`: v3, v2, the automatic payment API and the predict query). The provider's published
// schemas allow them and real clients send them (a v3 client sends payment_id to refunds, merchant
// scripts send receiver_id to create), so they are taken out of the body (and the query string)
// before anything reads it, and named in a response header and the request's log line: a typo
// (`notfy_url`) is still visible to the developer, and in developer mode the member it likely
// misspells is named too. Everything after this hook (validation, the field tables, the NUL check,
// Idempotency-Key's comparison of bodies) sees the known members only, so each keeps every rule it
// had. The hook is the route's own, so it runs after every hook of its scope: on v2, after the
// signature was verified over every field sent. A route that moves money names the members it acts
// on: an unknown member while one of them is missing is refused (domain/unread-members.ts), never
// read as "all". Members of an object member whose schema lists them (the descriptor's `params`)
// are treated alike.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { validationError } from '../domain/errors.js';
import { likelyTypo, unreadMoneyRequest } from '../domain/unread-members.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Top-level body members (and query parameters) the route's schema does not list are dropped and named, not refused. */
    ignoreUnknownFields?: boolean;
    /** The members a money-moving route acts on: missing beside an unknown member, the request is refused. */
    moneyMembers?: readonly string[];
    /** Unknown members that only repeat a path parameter (a refund's `payment_id`): read, so never a reason to refuse. */
    echoedParams?: Readonly<Record<string, string>>;
  }
}

export const IGNORED_FIELDS_HEADER = 'quipu-ignored-fields';
/** Developer mode: `amout=amount`, each ignored member that is close to a known one, with that one. */
export const LIKELY_TYPOS_HEADER = 'quipu-likely-typos';

/** A member name may be megabytes long; a header that large would break the client reading it. */
const HEADER_LIMIT = 1024;

const SEPARATOR = ', ';

/** A lone UTF-16 surrogate (JSON can escape one into a name) cannot be percent-encoded: U+FFFD stands for it. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;

/** A name may hold any character, a header value may not: percent-encoded (`receiver_id` stays as it is). */
export const headerName = (name: string) => encodeURIComponent(name.replace(LONE_SURROGATE, '\uFFFD'));

/**
 * A header's list: the entries (names percent-encoded) sorted, as many as fit in HEADER_LIMIT
 * characters, then `+N more` for the rest (a space and a `+` are never left unencoded in a name).
 */
export function headerList(entries: readonly string[]): string {
  const encoded = [...entries].sort();
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

/** The Quipu-Ignored-Fields value of these member names. */
export const ignoredFieldsHeader = (names: readonly string[]): string => headerList(names.map(headerName));

/** The Quipu-Likely-Typos value, or nothing when no ignored member is close to a known one. */
function likelyTyposHeader(names: readonly string[], known: readonly string[]): string | undefined {
  const pairs: string[] = [];
  for (const name of names) {
    const meant = likelyTypo(name, known);
    if (meant !== undefined) pairs.push(`${headerName(name)}=${headerName(meant)}`);
  }
  return pairs.length > 0 ? headerList(pairs) : undefined;
}

/** The ignored members that say something the request did not already say in its path. */
function unread(ignored: readonly string[], body: Record<string, unknown>, request: FastifyRequest): string[] {
  const echoed = request.routeOptions.config.echoedParams;
  if (echoed === undefined) return [...ignored];
  const params = request.params as Record<string, unknown>;
  return ignored.filter((name) => !(Object.hasOwn(echoed, name) && body[name] === params[echoed[name]!]));
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The members a body schema lists: its own, and those of a member that is itself an object of
 * listed members (the descriptor's `params`), whose unknown members are ignored the same way and
 * named with a dot (`params.currency_cod`).
 */
interface KnownMembers {
  top: ReadonlySet<string>;
  nested: ReadonlyMap<string, ReadonlySet<string>>;
  /** Every known name as a header names it, to find the one a typo meant. */
  names: readonly string[];
}

function knownMembersOf(schema: ObjectSchema): KnownMembers {
  const properties = schema.properties ?? {};
  const nested = new Map<string, ReadonlySet<string>>();
  for (const [name, member] of Object.entries(properties)) {
    const inner = (member as ObjectSchema).properties;
    if (inner !== undefined) nested.set(name, new Set(Object.keys(inner)));
  }
  const names = [...Object.keys(properties), ...[...nested].flatMap(([name, inner]) => [...inner].map((member) => `${name}.${member}`))];
  return { top: new Set(Object.keys(properties)), nested, names };
}

/** An unknown member: the object that holds it, its key there, and how it is named. */
interface Unknown {
  holder: Record<string, unknown>;
  key: string;
  name: string;
}

function unknownMembers(body: Record<string, unknown>, known: KnownMembers): Unknown[] {
  const found: Unknown[] = [];
  for (const key of Object.keys(body)) {
    if (!known.top.has(key)) found.push({ holder: body, key, name: key });
  }
  for (const [parent, members] of known.nested) {
    const inner = body[parent];
    if (!isObject(inner)) continue;
    for (const key of Object.keys(inner)) {
      if (!members.has(key)) found.push({ holder: inner, key, name: `${parent}.${key}` });
    }
  }
  return found;
}

/** Whether the body holds a money member, named as `amount` or, inside an object member, `params.currency_code`. */
function holds(body: Record<string, unknown>, name: string): boolean {
  const dot = name.indexOf('.');
  if (dot < 0) return Object.hasOwn(body, name);
  const inner = body[name.slice(0, dot)];
  return isObject(inner) && Object.hasOwn(inner, name.slice(dot + 1));
}

/** The unknown members of one part of the request (the body, or the query string), if it is an object. */
const unknownIn = (part: unknown, known: KnownMembers | undefined): Unknown[] => (known !== undefined && isObject(part) ? unknownMembers(part, known) : []);

/** `query`: what the route's query schema lists, when it has one (a route without one reads no parameter). */
function ignoreUnknown(body: KnownMembers | undefined, query: KnownMembers | undefined, moneyMembers: readonly string[]) {
  const names = [...(body?.names ?? []), ...(query?.names ?? [])];
  return function ignoreUnknownMembers(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const inBody = unknownIn(request.body, body);
    const unknown = [...inBody, ...unknownIn(request.query, query)];
    if (unknown.length === 0) return done();
    const ignored = unknown.map((member) => member.name);
    reply.header(IGNORED_FIELDS_HEADER, ignoredFieldsHeader(ignored));
    if (request.merchant?.developer) {
      const typos = likelyTyposHeader(ignored, names);
      if (typos !== undefined) reply.header(LIKELY_TYPOS_HEADER, typos);
    }
    if (inBody.length > 0) {
      const refused = moneyRefusal(
        request,
        request.body as Record<string, unknown>,
        inBody.map((member) => member.name),
        names,
        moneyMembers,
      );
      if (refused) return done(refused);
    }
    for (const { holder, key } of unknown) delete holder[key];
    done();
  };
}

/** The 400 of a money-moving request with unknown members that lacks a member it acts on, if it is one. */
function moneyRefusal(
  request: FastifyRequest,
  body: Record<string, unknown>,
  unknown: readonly string[],
  known: readonly string[],
  moneyMembers: readonly string[],
) {
  const missing = moneyMembers.filter((name) => !holds(body, name));
  const refused = unreadMoneyRequest(unread(unknown, body, request), missing, known);
  return refused.length > 0 ? validationError(refused) : undefined;
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  description?: string;
}

/** The schema published open (no `additionalProperties: false`), as the provider's is, and the members it lists. */
function opened(schema: ObjectSchema, description?: string): { schema: ObjectSchema; known: KnownMembers } {
  const { additionalProperties: _refused, ...open } = schema;
  return { schema: description === undefined || open.description !== undefined ? open : { ...open, description }, known: knownMembersOf(open) };
}

/**
 * An onRoute hook, registered before the NUL refusal so that a NUL inside an ignored member is
 * ignored with it. The route's body and query schemas are published open.
 */
export function ignoreUnknownFieldsOn(route: RouteOptions): void {
  if (!route.config?.ignoreUnknownFields) return;
  const { body, querystring } = route.schema ?? {};
  const openBody =
    body === undefined ? undefined : opened(body as ObjectSchema, 'Members not listed here are ignored and named in the Quipu-Ignored-Fields response header');
  const openQuery = querystring === undefined ? undefined : opened(querystring as ObjectSchema);
  route.schema = { ...route.schema, ...(openBody && { body: openBody.schema }), ...(openQuery && { querystring: openQuery.schema }) };
  route.preValidation = [...[route.preValidation ?? []].flat(), ignoreUnknown(openBody?.known, openQuery?.known, route.config.moneyMembers ?? [])];
}
