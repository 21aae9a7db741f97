// Request validation. Bodies are checked strictly (JSON types as sent, unknown fields refused
// unless the route ignores them: ignored-fields.ts, every error reported); query strings, path
// parameters and headers arrive as text and are coerced.
// The formats are the domain's own checks, so a rule has one definition.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { parseDateTime } from '../domain/dates.js';
import type { FieldError } from '../domain/errors.js';
import { isEmail, isRedirectUrl, isWebUrl } from '../domain/formats.js';

export const FORMATS = {
  email: { check: isEmail, message: 'must be an email address' },
  'web-url': { check: isWebUrl, message: 'must be an absolute http or https URL' },
  'redirect-url': { check: isRedirectUrl, message: 'must be an absolute URL' },
  'date-time': { check: (s: string) => parseDateTime(s) !== undefined, message: 'must be an ISO 8601 date-time with a time zone' },
} as const;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, removeAdditional: false, useDefaults: true, ...options });
  // ajv-formats is CommonJS: its plugin is the module's default export.
  formatsPlugin.default(ajv, ['uuid', 'uri']);
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: format.check });
  // OpenAPI's numeric formats describe the wire type; JSON numbers need no further check.
  for (const name of ['double', 'int64']) ajv.addFormat(name, { type: 'number', validate: () => true });
  return ajv;
}

const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

/**
 * A route's schema is compiled when the route first validates a request, not when the server
 * starts: compiling every route's schemas took about a quarter of `quipu serve`'s start-up (its
 * CPU profile, node --cpu-prof). Fastify reads the errors from the function it was given.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    compiled ??= (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
    const valid = compiled(data) as boolean;
    validate.errors = compiled.errors;
    return valid;
  };
  validate.errors = undefined as ValidateFunction['errors'];
  return validate as ReturnType<FastifySchemaCompiler<object>>;
};

/** The offending field as a dotted path: `subject`, or `credits.0.amount` inside nested bodies. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const child =
    error.keyword === 'required' ? error.params.missingProperty : error.keyword === 'additionalProperties' ? error.params.additionalProperty : undefined;
  if (child !== undefined) return path ? `${path}.${String(child)}` : String(child);
  return path || 'body';
}

function messageOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'maxLength':
      return `must be at most ${p.limit} characters long`;
    case 'minLength':
      return `must be at least ${p.limit} characters long`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'type':
      // A field of several types names them all: "string,number" is "a string or a number".
      return `must be ${
        p.type === 'object'
          ? 'a JSON object'
          : String(p.type)
              .split(',')
              .map((type) => `a ${type}`)
              .join(' or ')
      }`;
    case 'format':
      return FORMATS[p.format as keyof typeof FORMATS]?.message ?? `must be a valid ${p.format}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** One entry per offending field, in the contract's `errors[]` shape. */
export function fieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = fieldOf(error);
    if (!out.some((e) => e.field === field)) out.push({ field, message: messageOf(error) });
  }
  return out;
}

/** What a body schema finds wrong with a value read elsewhere than a request (a command's file), named as a route names it. */
export function schemaProblems(schema: object, value: unknown): FieldError[] {
  const validate = bodyAjv.compile(schema);
  return validate(value) ? [] : fieldErrors(validate.errors ?? []);
}

/**
 * For a route declared with `attachValidation` whose use case checks every field itself: what
 * the schema found, for the use case to report together with the rules that need the account
 * (one 400 naming every offending field). A body that is not an object is refused at once.
 */
export function schemaFindings(request: FastifyRequest): FieldError[] {
  const error = request.validationError;
  if (!error) return [];
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw error;
  return fieldErrors(error.validation as readonly ErrorObject[]);
}
