// Request bodies of the v2 API. Create-payment and receivers take form-urlencoded bodies, as the
// official clients send them; refunds take a form or JSON. Both parsers keep what a request
// signature covers: the decoded form pairs, or the JSON text exactly as it arrived.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationError } from '../../domain/errors.js';
import { plainDecimalText } from '../../domain/money.js';
import { JAVA_DOUBLE_FIELDS, type SignedParam } from '../../domain/v2-signature.js';
import { jsonBodyParser } from '../json-body.js';

export type SignedBody = { params: SignedParam[] } | { json: string };

declare module 'fastify' {
  interface FastifyRequest {
    /** The part of the body a v2 signature covers. */
    signedBody: SignedBody | null;
  }
  interface FastifyContextConfig {
    /** v2 operations whose body the contract declares form-urlencoded. */
    formBody?: boolean;
  }
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** What the OpenAPI document says each kind of v2 operation consumes (`schema.consumes`). */
export const FORM_ONLY = [FORM];
export const FORM_OR_JSON = [FORM, JSON_TYPE];

type FormFields = Record<string, string | string[]>;

/** No v2 operation has a tenth of this many fields. */
const MAX_FORM_FIELDS = 256;

/**
 * Field name to value; a field given more than once keeps all its values, to be refused by name.
 * Linear in the number of fields: this runs before the signature is checked, on whatever anyone sends.
 */
function formFields(params: readonly SignedParam[]): FormFields {
  // No prototype: a field called __proto__ is a field like any other (and an unknown one).
  const fields: FormFields = Object.create(null);
  for (const [key, value] of params) {
    const seen = fields[key];
    if (seen === undefined) fields[key] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else fields[key] = [seen, value];
  }
  return fields;
}

export function v2BodyParsers(app: FastifyInstance): void {
  app.decorateRequest('signedBody', null);
  // Replace whatever form or JSON parser the scope inherits: the signature needs the text as sent.
  for (const type of [FORM, JSON_TYPE]) if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type);

  app.addContentTypeParser(FORM, { parseAs: 'string' }, (request, body, done) => {
    const params = [...new URLSearchParams(body as string)];
    // Refused before the signature is computed over them, on whatever anyone sends.
    if (params.length > MAX_FORM_FIELDS) return done(validationError([{ field: 'body', message: `must have at most ${MAX_FORM_FIELDS} fields` }]));
    request.signedBody = { params };
    done(null, formFields(params));
  });

  const parseJson = jsonBodyParser(app);
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() !== '') request.signedBody = { json: text };
    return parseJson(request, text, done);
  });
}

/** A form field given twice is ambiguous: it is refused by name rather than one value picked. */
export async function singleValuedFields(request: FastifyRequest): Promise<void> {
  if (!request.signedBody || !('params' in request.signedBody)) return;
  const fields = request.body as FormFields;
  const repeated = Object.keys(fields).filter((field) => Array.isArray(fields[field]));
  if (repeated.length > 0) throw validationError(repeated.map((field) => ({ field, message: 'must be given once' })));
}

/**
 * The Java client writes doubles from 10^7 up in scientific notation (`1.0E+7`): its amounts are
 * read as the exact decimal they denote. The signature was verified over the text as sent.
 */
export async function plainJavaAmounts(request: FastifyRequest): Promise<void> {
  if (!request.signedBody || !('params' in request.signedBody)) return;
  const fields = request.body as FormFields;
  for (const field of JAVA_DOUBLE_FIELDS) {
    const value = fields[field];
    if (typeof value === 'string') fields[field] = plainDecimalText(value.trim());
  }
}

/**
 * Refuses anything but a form on the operations marked `formBody`. It runs before the signature is
 * verified: the body's type reveals nothing secret, and a JSON body signed as if it were a form
 * deserves to hear that it should be a form, not that its signature is wrong.
 */
export async function requireForm(request: FastifyRequest): Promise<void> {
  if (!request.routeOptions.config.formBody) return;
  if (request.signedBody && 'params' in request.signedBody) return;
  const sent = request.headers['content-type'];
  throw validationError(
    [{ field: 'body', message: `must be ${FORM}${sent ? `, not ${sent}` : ''}` }],
    `This operation takes a form-urlencoded body (Content-Type: ${FORM})`,
  );
}
