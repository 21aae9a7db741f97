// Defences shared by every server-rendered page (payer pages, authorization pages): security
// headers (helmet), form parsing, CSRF tokens bound to a secret cookie (the form field is the only
// carrier: the pages send no script), and a strict Content-Security-Policy. The policy depends on the
// page (where its forms may lead), so each surface writes it per reply with `contentSecurityPolicy`.
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

export interface PageSecurityOptions {
  cookieKey: string;
  cookiePath: string;
  sameSite: 'lax' | 'strict';
  secureCookies: boolean;
  /** How long a form stays valid. */
  formTtlSeconds?: number;
}

export async function pageSecurity(scope: FastifyInstance, options: PageSecurityOptions): Promise<void> {
  if (!scope.hasDecorator('parseCookie')) await scope.register(cookie);
  if (!scope.hasContentTypeParser('application/x-www-form-urlencoded')) await scope.register(formbody);
  await scope.register(helmet, { contentSecurityPolicy: false, global: true });
  await scope.register(csrf, {
    cookieKey: options.cookieKey,
    cookieOpts: { path: options.cookiePath, sameSite: options.sameSite, httpOnly: true, secure: options.secureCookies },
    getToken: (request) => (request.body as Record<string, string> | undefined)?._csrf,
    ...(options.formTtlSeconds ? { csrfOpts: { validity: options.formTtlSeconds * 1000 } } : {}),
  });
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
