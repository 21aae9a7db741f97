// The portal's session: the signed-in payer's RUT and the session's end, sealed with the
// installation's key (AES-GCM: a browser can neither read nor forge it, and no other secret has to
// be configured) in an HttpOnly, SameSite=Lax cookie named as every cookie is (../cookies.ts). It
// ends 15 minutes after sign-in on the developer clock, like everything time-based in the sandbox.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { cookieName, cookieOptions, secureCookies } from '../cookies.js';

export const PORTAL_PATH = '/demobank/portal';
const COOKIE = 'quipu_demobank_session';
const SESSION_MS = 15 * 60_000;

interface Sealed {
  rut: string;
  ends: number;
}

export function startSession(ctx: AppContext, reply: FastifyReply, rut: string): void {
  const sealed: Sealed = { rut, ends: ctx.clock.now().getTime() + SESSION_MS };
  const secure = secureCookies(ctx.config);
  void reply.setCookie(cookieName(COOKIE, secure), ctx.secrets.seal(JSON.stringify(sealed)), {
    ...cookieOptions(secure),
    sameSite: 'lax',
    maxAge: SESSION_MS / 1000,
  });
}

export function endSession(reply: FastifyReply): void {
  const secure = secureCookies(reply.request.ctx.config);
  void reply.clearCookie(cookieName(COOKIE, secure), cookieOptions(secure));
}

/** The signed-in payer's RUT; undefined without a session, or with one that ended or was tampered with. */
export function sessionRut(request: FastifyRequest): string | undefined {
  const cookie = request.cookies[cookieName(COOKIE, secureCookies(request.ctx.config))];
  if (!cookie) return undefined;
  let sealed: Sealed;
  try {
    sealed = JSON.parse(request.ctx.secrets.open(cookie)) as Sealed;
  } catch {
    return undefined;
  }
  return typeof sealed.rut === 'string' && sealed.ends > request.ctx.clock.now().getTime() ? sealed.rut : undefined;
}
