// Defences shared by every server-rendered page (payer pages, authorization pages): security
// headers (helmet), form parsing, CSRF tokens bound to a secret cookie (the form field is the only
// carrier: the pages send no script), and a strict Content-Security-Policy. The policy depends on the
// page (where its forms may lead), so each surface writes it per reply with `contentSecurityPolicy`.
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DomainError, fieldError } from '../domain/errors.js';
import { cookieName, cookieOptions } from './cookies.js';

export interface PageSecurityOptions {
  /** The CSRF secret's cookie, named as every cookie is (./cookies.ts). */
  cookieKey: string;
  sameSite: 'lax' | 'strict';
  secureCookies: boolean;
  /** How long a form stays valid. */
  formTtlSeconds?: number;
}

export async function pageSecurity(scope: FastifyInstance, options: PageSecurityOptions): Promise<void> {
  if (!scope.hasDecorator('parseCookie')) await scope.register(cookie);
  if (!scope.hasContentTypeParser('application/x-www-form-urlencoded')) await scope.register(formbody);
  // HSTS is every answer's, pages' and API answers' alike, and only over https (transport-security.ts).
  await scope.register(helmet, { contentSecurityPolicy: false, strictTransportSecurity: false, global: true });
  await scope.register(csrf, {
    cookieKey: cookieName(options.cookieKey, options.secureCookies),
    cookieOpts: { ...cookieOptions(options.secureCookies), sameSite: options.sameSite },
    getToken: (request) => (request.body as Record<string, string> | undefined)?._csrf,
    ...(options.formTtlSeconds ? { csrfOpts: { validity: options.formTtlSeconds * 1000 } } : {}),
  });
  scope.addHook('preValidation', singleValuedForm);
}

/**
 * No form of these pages repeats a field, and one sent twice means two things (which email signs
 * in? which amount is refunded?): a 400 naming it, before the CSRF check or a handler reads either.
 */
function singleValuedForm(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const body = request.body;
  if (body === null || typeof body !== 'object') return done();
  const repeated = Object.keys(body).find((name) => Array.isArray((body as Record<string, unknown>)[name]));
  done(repeated === undefined ? undefined : fieldError(repeated, 'must be given once'));
}

/** The CSP source of a URL a form's answer may redirect to: its origin, or its scheme for app URLs. */
export function cspSourceOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin;
    return /^[a-z][a-z0-9+.-]*:$/i.test(parsed.protocol) ? parsed.protocol : undefined;
  } catch {
    return undefined;
  }
}

/** No script, styles from this server, images from it plus `extraImageSources`, forms to it plus `extraFormTargets`. */
export function contentSecurityPolicy(extraFormTargets: readonly string[], extraImageSources: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    `img-src ${["'self'", ...extraImageSources].join(' ')}`,
    `form-action ${["'self'", ...extraFormTargets].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** What a page scope's fault page says: not found, a stale or forged form, a bad request, or our failure. */
export type PageFault =
  { kind: 'not-found'; status: 404 } | { kind: 'form'; status: 403 } | { kind: 'bad-request'; status: number } | { kind: 'error'; status: 500 };

export function pageFaultOf(error: FastifyError): PageFault {
  if (error instanceof DomainError && error.kind === 'not_found') return { kind: 'not-found', status: 404 };
  // A missing or stale CSRF token: the form expired, or it did not come from our page.
  if (error.code?.startsWith('FST_CSRF')) return { kind: 'form', status: 403 };
  if ((error instanceof DomainError && error.kind === 'validation') || error.validation || (error.statusCode ?? 500) < 500) {
    return { kind: 'bad-request', status: error.statusCode && error.statusCode < 500 ? error.statusCode : 400 };
  }
  return { kind: 'error', status: 500 };
}
