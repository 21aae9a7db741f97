// The payer pages' language: a language chosen with ?lang= is remembered in a cookie, one per
// group of pages (named after their path: every cookie has Path=/, ../cookies.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLang, type Lang } from '../../render/words.js';
import { cookieName, cookieOptions, scopedName, secureCookies } from '../cookies.js';

const COOKIE = 'quipu_lang';

/** ?lang= chooses (and is remembered for the pages under `cookiePath`); otherwise the remembered choice; otherwise Spanish. */
export function languageOf(request: FastifyRequest, reply: FastifyReply, cookiePath = '/payment'): Lang {
  const secure = secureCookies(request.ctx.config);
  const name = cookieName(scopedName(COOKIE, cookiePath), secure);
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  if (isLang(asked)) {
    void reply.setCookie(name, asked, { ...cookieOptions(secure), sameSite: 'lax', maxAge: 365 * 24 * 3600 });
    return asked;
  }
  const remembered = request.cookies[name];
  return isLang(remembered) ? remembered : 'es';
}
