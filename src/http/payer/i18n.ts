// The payer pages' language: a language chosen with ?lang= is remembered in a cookie.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Lang, LANGUAGES } from '../../render/words.js';

const COOKIE = 'quipu_lang';

function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** ?lang= chooses (and is remembered for the pages under `cookiePath`); otherwise the remembered choice; otherwise Spanish. */
export function languageOf(request: FastifyRequest, reply: FastifyReply, cookiePath = '/payment'): Lang {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  if (isLang(asked)) {
    void reply.setCookie(COOKIE, asked, { path: cookiePath, sameSite: 'lax', httpOnly: true, maxAge: 365 * 24 * 3600 });
    return asked;
  }
  const remembered = request.cookies[COOKIE];
  return isLang(remembered) ? remembered : 'es';
}
