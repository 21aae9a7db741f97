// The dashboard's session cookie: a random token (the sessions table holds its hash), HttpOnly,
// SameSite=Lax, and named, secured and scoped by the rule of every cookie (../cookies.ts: `__Host-`
// and Secure when PUBLIC_BASE_URL is https, the address browsers use, TLS ended in front of Quipu
// or not). It has no Max-Age: the server ends the session (idle and absolute limits), and closing
// the browser forgets it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieName, cookieOptions, secureCookies } from '../cookies.js';

export const DASHBOARD_PATH = '/dashboard';
const COOKIE = 'quipu_session';
/** The secret the dashboard's form tokens are bound to. */
export const CSRF_COOKIE = 'quipu_dashboard_csrf';

const secure = (request: FastifyRequest) => secureCookies(request.ctx.config);

export function setSessionCookie(reply: FastifyReply, token: string): void {
  const on = secure(reply.request);
  void reply.setCookie(cookieName(COOKIE, on), token, { ...cookieOptions(on), sameSite: 'lax' });
}

export function clearSessionCookie(reply: FastifyReply): void {
  const on = secure(reply.request);
  void reply.clearCookie(cookieName(COOKIE, on), cookieOptions(on));
}

/** Forgets the CSRF secret too (a new session gets new form tokens). */
export function clearCsrfCookie(reply: FastifyReply): void {
  const on = secure(reply.request);
  void reply.clearCookie(cookieName(CSRF_COOKIE, on), cookieOptions(on));
}

export const sessionToken = (request: FastifyRequest): string | undefined => request.cookies[cookieName(COOKIE, secure(request))] || undefined;
