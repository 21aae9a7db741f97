// What the authorization server's pages read from a request: the id in the path (of a flow or a
// consent review, both 18 random bytes in base64url) and the fields of a posted form.
import type { FastifyRequest } from 'fastify';
import { notFound } from '../../domain/errors.js';

export const PAGE_ID = /^[A-Za-z0-9_-]{24}$/;

export type PageRequest = FastifyRequest<{ Params: { id: string }; Body: Record<string, unknown> | undefined }>;

/** The path's id; one that cannot be `what`'s is not found. */
export function pageId(request: PageRequest, what: string): string {
  if (!PAGE_ID.test(request.params.id)) throw notFound(what);
  return request.params.id;
}

/** A form field, '' when missing or not text. */
export function field(request: PageRequest, name: string): string {
  const value = request.body?.[name];
  return typeof value === 'string' ? value : '';
}
