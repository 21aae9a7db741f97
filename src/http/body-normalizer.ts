// Clients of generated SDKs send unset optional fields as null, and the v2 libraries send them as
// empty text. Both mean "not given"; they are dropped before validation so the rules see one form.
// Empty text in a member the route requires as plain text is kept: the provider's schema takes ""
// there (no minLength), so the field rules accept it and name it as a doubt (docs/validation-rules.md),
// rather than answer "is required" of a member that was sent. A money member's stays "not given".
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Null and empty fields are values the route refuses, not "not given" (refunds: a refund cannot be undone). */
    keepEmptyFields?: boolean;
  }
}

interface BodySchema {
  required?: readonly string[];
  properties?: Readonly<Record<string, { type?: unknown; format?: unknown; enum?: unknown }>>;
}

const NONE: ReadonlySet<string> = new Set();

/** Per body schema, the members it requires as plain text: a string with no format or enum, which "" meets. */
const plainTextRequired = new WeakMap<BodySchema, ReadonlySet<string>>();

function requiredPlainText(schema: BodySchema): ReadonlySet<string> {
  let names = plainTextRequired.get(schema);
  if (names === undefined) {
    names = new Set(
      (schema.required ?? []).filter((name) => {
        const member = schema.properties?.[name];
        return member?.type === 'string' && member.format === undefined && member.enum === undefined;
      }),
    );
    plainTextRequired.set(schema, names);
  }
  return names;
}

// A POST or DELETE without a body is an empty object: optional bodies (refunds, v2 delete) work,
// and required fields are named.
function emptyObjectIfMissing(request: FastifyRequest): void {
  if (request.body === undefined && (request.method === 'POST' || request.method === 'DELETE')) request.body = {};
}

/** For a route outside the API scopes whose every member is optional: a POST without a body is an empty object. */
export function emptyObjectIfNoBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  emptyObjectIfMissing(request);
  done();
}

/** Drops the null and empty members of `value`, when it is a JSON object (a body, or an object inside one); `kept` keep their "". */
export function dropEmptyMembers(value: unknown, kept: ReadonlySet<string> = NONE): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (member === null || (member === '' && !kept.has(key))) delete (value as Record<string, unknown>)[key];
    }
  }
}

/** The members whose "" the route's field rules judge: required plain text, money members aside. */
function emptyTextKept(request: FastifyRequest): ReadonlySet<string> {
  const schema = request.routeOptions.schema?.body as BodySchema | undefined;
  if (schema === undefined) return NONE;
  const money = request.routeOptions.config.moneyMembers ?? [];
  const names = requiredPlainText(schema);
  return money.some((name) => names.has(name)) ? new Set([...names].filter((name) => !money.includes(name))) : names;
}

/**
 * Null and empty members are dropped as "not given" (see above), except on routes marked
 * `keepEmptyFields`. A preValidation hook in callback form: it never waits, so it costs no promise.
 */
export function normalizeEmptyFields(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  emptyObjectIfMissing(request);
  if (request.routeOptions.config.keepEmptyFields !== true) dropEmptyMembers(request.body, emptyTextKept(request));
  done();
}
