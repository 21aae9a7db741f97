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

/** `field=what is doubtful`, each part percent-encoded, sorted and bounded as Quipu-Ignored-Fields is. */
export function warnAbout(request: FastifyRequest, reply: FastifyReply, doubts: readonly FieldError[]): void {
  if (doubts.length === 0 || !request.merchant?.developer) return;
  request.warnings = doubts;
  void reply.header(WARNINGS_HEADER, headerList(doubts.map((doubt) => `${headerName(doubt.field)}=${encodeURIComponent(doubt.message)}`)));
}
