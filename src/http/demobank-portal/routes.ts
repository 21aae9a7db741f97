// The portal's pages: thin handlers around app/demobank-portal.ts. Forms follow post-redirect-get;
// a page that needs a session sends a browser without one to sign in.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { payerMandates, revokePayerMandate, signInToDemoBankPortal } from '../../app/demobank-portal.js';
import { DomainError } from '../../domain/errors.js';
import type { DemoMandate } from '../../bank/demo-bank-mandates.js';
import type { Messages } from '../../render/words.js';
import { frameOf, sendPage } from '../payer/routes.js';
import { mandatesPage, signInPage } from './pages.js';
import { endSession, PORTAL_PATH, sessionRut, startSession } from './session.js';

type Form = Record<string, string | undefined>;

const MANDATES_PATH = `${PORTAL_PATH}/mandates`;

const portalFrame = (request: FastifyRequest, reply: FastifyReply, selfPath: string) => frameOf(request, reply, selfPath, PORTAL_PATH);

const kindOf = (error: unknown) => (error instanceof DomainError ? error.kind : undefined);

export function portalRoutes(app: FastifyInstance): void {
  const signIn = (request: FastifyRequest, reply: FastifyReply, status: number, values: Form, errors: Form) => {
    const frame = portalFrame(request, reply, PORTAL_PATH);
    return sendPage(reply, frame, status, frame.m.bankLogin('DemoBank'), signInPage(frame.m, reply.generateCsrf(), values, errors));
  };
  app.get(PORTAL_PATH, async (request, reply) => (sessionRut(request) ? reply.redirect(MANDATES_PATH, 303) : signIn(request, reply, 200, {}, {})));
  app.post<{ Body: Form }>(`${PORTAL_PATH}/sign-in`, { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = request.body ?? {};
    try {
      startSession(request.ctx, reply, await signInToDemoBankPortal(request.ctx, { identifier: body.rut ?? '', password: body.password ?? '' }));
      return reply.redirect(MANDATES_PATH, 303);
    } catch (error) {
      const m = portalFrame(request, reply, PORTAL_PATH).m;
      if (kindOf(error) === 'validation') {
        const fields = new Set((error as DomainError).fields.map((f) => f.field));
        return signIn(request, reply, 400, body, {
          rut: fields.has('rut') ? m.rutError : undefined,
          password: fields.has('password') ? m.passwordError : undefined,
        });
      }
      if (kindOf(error) === 'unavailable') return signIn(request, reply, 503, body, { form: m.bankUnavailable });
      throw error;
    }
  });
  app.post(`${PORTAL_PATH}/sign-out`, { preHandler: app.csrfProtection }, async (_request, reply) => {
    endSession(reply);
    return reply.redirect(PORTAL_PATH, 303);
  });

  const list = async (
    request: FastifyRequest,
    reply: FastifyReply,
    rut: string,
    status: number,
    notice: (m: Messages, mandates: DemoMandate[]) => string | undefined,
  ) => {
    const frame = portalFrame(request, reply, MANDATES_PATH);
    const mandates = await payerMandates(request.ctx, rut);
    return sendPage(reply, frame, status, frame.m.demoBankPortal.title, mandatesPage(frame.m, reply.generateCsrf(), rut, mandates, notice(frame.m, mandates)));
  };
  app.get<{ Querystring: { revoked?: string } }>(MANDATES_PATH, async (request, reply) => {
    const rut = sessionRut(request);
    if (!rut) return reply.redirect(PORTAL_PATH, 303);
    return list(request, reply, rut, 200, (m, mandates) => {
      const revoked = mandates.find((mandate) => mandate.mandateId === request.query.revoked && mandate.state === 'revoked');
      return revoked && m.demoBankPortal.revoked(revoked.creditor);
    });
  });
  app.post<{ Params: { id: string } }>(`${MANDATES_PATH}/:id/revoke`, { preHandler: app.csrfProtection }, async (request, reply) => {
    const rut = sessionRut(request);
    if (!rut) return reply.redirect(PORTAL_PATH, 303);
    try {
      await revokePayerMandate(request.ctx, rut, request.params.id);
      return reply.redirect(`${MANDATES_PATH}?revoked=${encodeURIComponent(request.params.id)}`, 303);
    } catch (error) {
      if (kindOf(error) !== 'state') throw error;
      return list(request, reply, rut, 409, (m) => m.demoBankPortal.notRevocable);
    }
  });
}
