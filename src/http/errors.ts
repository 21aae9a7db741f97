// Turns every failure into the contract's error shape: 400 {status, message, errors[]} naming each
// offending field, 401/403/404/409/422 {status, message}, and an unexpected failure as 500 (503 on
// v2) with no internals (the details go to the log under the request id). Surfaces choose how
// failure kinds, and unexpected failures, map to status codes.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type FailureKind, type FieldError } from '../domain/errors.js';
import { IllegalTransition } from '../domain/state-machine.js';
import { noteStorageFailure, storageFailureOf } from '../store/storage-failure.js';
import { STORAGE_RETRY_AFTER_SECONDS } from './health.js';
import { fieldErrors } from './validation.js';

export interface ErrorBody {
  status: number;
  message: string;
  errors?: FieldError[];
}

export type StatusMap = Readonly<Record<FailureKind, number>>;

export const V3_STATUS: StatusMap = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  state: 400,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
};

/**
 * The v2 API as its clients read it (400, 403 and 503 become ValidationError, AuthorizationError
 * and ServiceError): a refused signature or operation is 403, and an operation the payment's state
 * does not allow is 503. No credential, or an unknown API key, is 401 as the contract says.
 */
export const V2_STATUS: StatusMap = { ...V3_STATUS, state: 503 };

/** The v2 clients have no type for a 500: an unexpected failure is a ServiceError (503) to them. */
export const V2_UNEXPECTED_STATUS = 503;

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query string', params: 'path', headers: 'headers' };

/** The body types a scope parses, in the order a client should prefer them. */
const BODY_TYPES = ['application/json', 'application/x-www-form-urlencoded'];

/** A 415 says which type to send instead: the scope's parsers are the operation's answer. */
function unsupportedType(request: FastifyRequest): string {
  const sent = request.headers['content-type']?.split(';')[0]?.trim();
  const taken = BODY_TYPES.filter((type) => request.server.hasContentTypeParser(type));
  const what = sent ? `Unsupported Content-Type ${sent}` : 'Missing Content-Type';
  return taken.length > 0 ? `${what}: send the body as ${taken.join(' or ')}` : `${what} for this operation`;
}

function fastifyFailure(error: FastifyError, request: FastifyRequest): { status: number; message: string; errors?: FieldError[] } | undefined {
  if (error.validation) {
    const errors = fieldErrors(error.validation as never);
    const part = PART_NAMES[error.validationContext ?? 'body'] ?? 'request';
    return { status: 400, message: `Invalid ${part}: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, errors };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: unsupportedType(request) };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: 'Request body is too large' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      // The parser refuses prototype-poisoning keys the same way as broken syntax, and says not which.
      return { status: 400, message: 'Malformed JSON body', errors: [{ field: 'body', message: 'must be valid JSON, without __proto__ or constructor keys' }] };
    default:
      break;
  }
  if (error instanceof SyntaxError) return { status: 400, message: 'Malformed request body', errors: [{ field: 'body', message: 'could not be parsed' }] };
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return { status, message: error.message };
  return undefined;
}

export function errorResponse(error: unknown, statuses: StatusMap, request: FastifyRequest): ErrorBody | undefined {
  if (error instanceof DomainError) {
    const status = statuses[error.kind];
    return error.kind === 'validation' ? { status, message: error.message, errors: error.fields } : { status, message: error.message };
  }
  if (error instanceof IllegalTransition) return { status: statuses.state, message: `The ${error.machine} is not in a state that allows this operation` };
  return fastifyFailure(error as FastifyError, request);
}

export function errorHandler(statuses: StatusMap, unexpectedStatus = 500) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const body = errorResponse(error, statuses, request);
    if (body) {
      if (body.status === 409) reply.header('retry-after', '1');
      // A limit that sets no wait of its own: a minute.
      if (body.status === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '60');
      void reply.code(body.status).send(body);
      return;
    }
    const storage = storageFailureOf(error);
    if (storage) {
      noteStorageFailure(request.ctx.db, Date.now());
      request.log.error({ err: error, storage }, `storage failure: ${storage}`);
      // What failed is the operator's to read in the log; the client learns it may try again.
      void reply
        .code(503)
        .header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS))
        .send({ status: 503, message: `Service temporarily unavailable: nothing was changed; try again later (request ${request.id})` });
      return;
    }
    request.log.error({ err: error }, 'unhandled error');
    void reply.code(unexpectedStatus).send({ status: unexpectedStatus, message: `Internal server error (request ${request.id})` });
  };
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A path the router knows under other methods is a 405 naming them (RFC 9110 15.5.6); any other, a
 * 404. A catch-all (`/dashboard/*`) knows no path: it is there to answer "not found" in its scope.
 */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0]!;
  const knows = (method: string) => {
    const route = request.server.findRoute({ method: method as 'GET', url: path });
    return route !== null && (route.params as Record<string, string>)['*'] === undefined;
  };
  const allowed = METHODS.filter(knows);
  if (allowed.length > 0) {
    void reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send({ status: 405, message: `${request.method} is not allowed on ${path}: use ${allowed.join(', ')}` });
    return;
  }
  void reply.code(404).send({ status: 404, message: `No operation ${request.method} ${path}` });
}
