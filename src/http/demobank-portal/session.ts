// The portal's session: the signed-in payer's RUT and the session's end, sealed with the
// installation's key (AES-GCM: a browser can neither read nor forge it, and no other secret has to
// be configured) in an HttpOnly, SameSite=Lax cookie scoped to the portal. It ends 15 minutes after
// sign-in on the developer clock, like everything time-based in the sandbox.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';

export const PORTAL_PATH = '/demobank/portal';
const COOKIE = 'quipu_demobank_session';
const SESSION_MS = 15 * 60_000;

interface Sealed {
  rut: string;
  ends: number;
}

export function startSession(ctx: AppContext, reply: FastifyReply, rut: string): void {
  const sealed: Sealed = { rut, ends: ctx.clock.now().getTime() + SESSION_MS };
  void reply.setCookie(COOKIE, ctx.secrets.seal(JSON.stringify(sealed)), {
    path: PORTAL_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.config.publicBaseUrl.startsWith('https:'),
    maxAge: SESSION_MS / 1000,
  });
}

export function endSession(reply: FastifyReply): void {
  void reply.clearCookie(COOKIE, { path: PORTAL_PATH });
}

/** The signed-in payer's RUT; undefined without a session, or with one that ended or was tampered with. */
export function sessionRut(request: FastifyRequest): string | undefined {
  const cookie = request.cookies[COOKIE];
  if (!cookie) return undefined;
  let sealed: Sealed;
  try {
    sealed = JSON.parse(request.ctx.secrets.open(cookie)) as Sealed;
  } catch {
    return undefined;
  }
  return typeof sealed.rut === 'string' && sealed.ends > request.ctx.clock.now().getTime() ? sealed.rut : undefined;
}
