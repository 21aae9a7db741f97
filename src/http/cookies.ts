// One rule for every cookie Quipu sets. When PUBLIC_BASE_URL is https, a cookie is named
// `__Host-<name>`: browsers then take it only with Secure, Path=/ and no Domain, so neither plain
// http nor a sibling subdomain can set or overwrite it. Over http (a developer's machine) browsers
// refuse such a name, so the plain name is used. Either way every cookie has Path=/: the surfaces'
// cookies (dashboard, payer pages, authorization pages) are kept apart by their names, not paths.
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../config.js';

export const secureCookies = (config: Pick<Config, 'publicBaseUrl'>): boolean => config.publicBaseUrl.startsWith('https:');

/** The name a cookie is sent under: `__Host-` prefixed over https. */
export const cookieName = (name: string, secure: boolean): string => (secure ? `__Host-${name}` : name);

/** The attributes every cookie has (a `__Host-` cookie is cleared only by a Secure answer with Path=/ too). */
export const cookieOptions = (secure: boolean): CookieSerializeOptions & { path: '/' } => ({ path: '/', secure, httpOnly: true });

/** A name for the pages under `path`: `quipu_lang` under /demobank/portal is `quipu_lang_demobank_portal`. */
export const scopedName = (name: string, path: string): string => `${name}${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/_+$/, '')}`;
