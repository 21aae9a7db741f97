// How the authorization server's pages are sent: HTML that is never cached, under a strict
// Content-Security-Policy whose form-action names only this server and, for a flow's pages, the
// client's redirect_uri (browsers apply form-action to the redirect that answers a form too).
import type { FastifyReply } from 'fastify';
import { contentSecurityPolicy, cspSourceOf } from '../page-security.js';

export interface PageOptions {
  status?: number;
  /** The client's redirect_uri, where this page's forms (or their redirects) may lead. */
  redirectUri?: string;
  /** A nonce for the one inline script of the form_post page. */
  nonce?: string;
}

export function sendHtml(reply: FastifyReply, body: string, options: PageOptions = {}): FastifyReply {
  const target = options.redirectUri ? cspSourceOf(options.redirectUri) : undefined;
  let policy = contentSecurityPolicy(target ? [target] : []);
  if (options.nonce) policy += `; script-src 'nonce-${options.nonce}'`;
  return reply
    .code(options.status ?? 200)
    .header('content-security-policy', policy)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(body);
}
