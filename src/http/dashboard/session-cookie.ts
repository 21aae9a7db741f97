// The dashboard's session cookie: a random token (the sessions table holds its hash), HttpOnly,
// SameSite=Lax, Secure when PUBLIC_BASE_URL is https (the address browsers use, TLS ended in front
// of Quipu or not), and sent to the dashboard's paths only. It has no Max-Age: the server ends the
// session (idle and absolute limits), and closing the browser forgets it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';

export const DASHBOARD_PATH = '/dashboard';
const COOKIE = 'quipu_session';
/** The secret the dashboard's form tokens are bound to. */
export const CSRF_COOKIE = 'quipu_dashboard_csrf';

export const secureCookies = (config: Config) => config.publicBaseUrl.startsWith('https:');

export function setSessionCookie(reply: FastifyReply, token: string): void {
  void reply.setCookie(COOKIE, token, { path: DASHBOARD_PATH, httpOnly: true, sameSite: 'lax', secure: secureCookies(reply.request.ctx.config) });
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(COOKIE, { path: DASHBOARD_PATH });
}

export const sessionToken = (request: FastifyRequest): string | undefined => request.cookies[COOKIE] || undefined;
