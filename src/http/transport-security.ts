// What every answer says about transport and framing, pages and API answers alike (ASVS 3.4.1,
// 3.4.6, 12.2.1):
// - with an https PUBLIC_BASE_URL, HSTS for a year, subdomains included: browsers then never try
//   the installation over plain HTTP (TLS ends in front of Quipu, so the address decides, not the
//   socket); over http (a developer's machine) browsers would ignore it, and none is sent;
// - `frame-ancestors 'none'` on every answer that has no policy of its own (pages write theirs,
//   with the same directive), so no answer is framed by another site;
// - behind a trusted proxy (TRUST_PROXY) that says the client came over plain HTTP
//   (X-Forwarded-Proto: http), a 403 that does nothing, never a redirect: a client sending API
//   credentials in the clear must notice, not be quietly forwarded. Sending browsers on to https is
//   the terminator's job, for the pages only (docs/security.md, TLS in front of Quipu).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { secureCookies } from './cookies.js';

export const HSTS = 'max-age=31536000; includeSubDomains';
const NO_FRAMING = "frame-ancestors 'none'";

export function transportSecurity(app: FastifyInstance, config: Config): void {
  const https = secureCookies(config);
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (https) void reply.header('strict-transport-security', HSTS);
    if (!reply.hasHeader('content-security-policy')) void reply.header('content-security-policy', NO_FRAMING);
    done(null, payload);
  });
  if (!https || config.trustProxy === false) return;
  app.addHook('onRequest', (request, reply, done) => {
    // request.protocol reads X-Forwarded-Proto only from a trusted proxy; a request without the
    // header (the balancer's own health check) is not judged.
    if (request.headers['x-forwarded-proto'] === undefined || request.protocol !== 'http') return done();
    void reply.code(403).send({ status: 403, message: `Plain HTTP is refused: use ${config.publicBaseUrl}` });
  });
}
