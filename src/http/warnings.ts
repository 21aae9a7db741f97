// Values Quipu accepts, as the provider would, that are likely mistakes (a RUT whose check digit
// does not match): never refused, but in developer mode named in the Quipu-Warnings response header
// and in the request's log line, so that developers still learn of them (docs/validation-rules.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FieldError } from '../domain/errors.js';
import { headerList, headerName } from './ignored-fields.js';

export const WARNINGS_HEADER = 'quipu-warnings';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the request's log line names as doubtful (developer mode). */
    warnings: readonly FieldError[] | null;
  }
}

/**
 * Names the doubts in the request's log line. Alone only where no account is authenticated (the
 * OAuth authorization request, whose client_id anyone may send): the operator's log hears of them.
 */
export function logDoubts(request: FastifyRequest, doubts: readonly FieldError[]): void {
  if (doubts.length > 0) request.warnings = doubts;
}

/**
 * For a developer-mode account: `field=what is doubtful` in Quipu-Warnings, each part percent-encoded,
 * sorted and bounded as Quipu-Ignored-Fields is, and in the log line. `developer`: the account's mode
 * where it is not the request's merchant (the OAuth client at the token endpoint).
 */
export function warnAbout(request: FastifyRequest, reply: FastifyReply, doubts: readonly FieldError[], developer = request.merchant?.developer ?? false): void {
  if (doubts.length === 0 || !developer) return;
  logDoubts(request, doubts);
  void reply.header(WARNINGS_HEADER, headerList(doubts.map((doubt) => `${headerName(doubt.field)}=${encodeURIComponent(doubt.message)}`)));
}
