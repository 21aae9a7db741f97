// The payer pages' defences: the shared page security (src/http/page-security.ts) with the payer's
// CSRF cookie, forms valid for PAYER_FORM_TTL_SECONDS, and a policy whose form-action also names the
// merchant's return and cancel URLs (browsers check form-action on the redirect that answers a form)
// and whose img-src names the origin of a merchant's picture the page shows.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { contentSecurityPolicy, cspSourceOf, pageSecurity } from '../page-security.js';

const formTargets = new WeakMap<FastifyReply, string[]>();
const imageSources = new WeakMap<FastifyReply, string[]>();

const sourcesOf = (urls: readonly (string | null)[]) => urls.flatMap((url) => (url ? (cspSourceOf(url) ?? []) : []));

/** Lets this reply's forms lead (through a redirect) to these URLs. */
export function allowFormTargets(reply: FastifyReply, urls: readonly (string | null)[]): void {
  formTargets.set(reply, sourcesOf(urls));
}

/** Lets this reply show images from these URLs' origins (a merchant's picture). */
export function allowImages(reply: FastifyReply, urls: readonly (string | null)[]): void {
  imageSources.set(reply, sourcesOf(urls));
}

export async function payerSecurity(scope: FastifyInstance, options: { secureCookies: boolean; formTtlSeconds: number }): Promise<void> {
  await pageSecurity(scope, { cookieKey: 'quipu_csrf', sameSite: 'lax', secureCookies: options.secureCookies, formTtlSeconds: options.formTtlSeconds });
  scope.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', contentSecurityPolicy(formTargets.get(reply) ?? [], imageSources.get(reply) ?? []));
    return payload;
  });
}
