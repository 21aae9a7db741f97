// The payer pages' defences: the shared page security (src/http/page-security.ts) with the payer's
// CSRF cookie, forms valid for PAYER_FORM_TTL_SECONDS, and a policy whose form-action also names the
// payment's return and cancel URLs (browsers check form-action on the redirect that answers a form).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { contentSecurityPolicy, cspSourceOf, pageSecurity } from '../page-security.js';

const formTargets = new WeakMap<FastifyReply, string[]>();

/** Lets this reply's forms lead (through a redirect) to these URLs. */
export function allowFormTargets(reply: FastifyReply, urls: readonly (string | null)[]): void {
  const sources = urls.flatMap((url) => (url ? (cspSourceOf(url) ?? []) : []));
  formTargets.set(reply, sources);
}

export async function payerSecurity(scope: FastifyInstance, options: { secureCookies: boolean; formTtlSeconds: number }): Promise<void> {
  await pageSecurity(scope, { cookieKey: 'quipu_csrf', cookiePath: '/payment', sameSite: 'lax', secureCookies: options.secureCookies, formTtlSeconds: options.formTtlSeconds });
  scope.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', contentSecurityPolicy(formTargets.get(reply) ?? []));
    return payload;
  });
}
