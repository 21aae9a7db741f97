// The pages where a payer runs an operation (Quipu as the provider's SDK): /operation/<id or
// descriptor> shows the transfer and the bank's sign-in, then the bank's challenge, then the result.
// Thin handlers over app/run-operation.ts in the payer pages' frame: forms follow post-redirect-get,
// and a descriptor that does not verify, an expired operation or one that already ran renders a page
// saying so, with nothing done.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openOperation } from '../../app/operation-queries.js';
import { operationBanks, originBank, runnableOperation, runOperation, signInForOperation, type RunnableOperation } from '../../app/run-operation.js';
import { DomainError, notFound } from '../../domain/errors.js';
import { UUID_PATTERN } from '../../domain/ids.js';
import { type Operation, operationBlock, operationResult } from '../../domain/operation.js';
import type { Html } from '../../render/html.js';
import type { PageFrame } from '../payer/layout.js';
import { type FormErrors, noticeContent } from '../payer/pages.js';
import { frameOf, sendPage } from '../payer/routes.js';
import { chooseBankPage, OPERATION_PAGES_PATH, operationAuthorizePage, operationLoginPage, operationPath, type OperationView, resultContent } from './pages.js';

type Params = { id: string };
type Form = Record<string, string | undefined>;
type Query = { bank?: string };

const kindOf = (error: unknown) => (error instanceof DomainError ? error.kind : undefined);
const fieldsOf = (error: DomainError) => new Set(error.fields.map((f) => f.field));

function operationId(request: FastifyRequest<{ Params: Params }>): string {
  if (!UUID_PATTERN.test(request.params.id)) throw notFound('Operation');
  return request.params.id;
}

const pageFrame = (request: FastifyRequest, reply: FastifyReply, selfPath: string) => frameOf(request, reply, selfPath, OPERATION_PAGES_PATH);

/** What an operation the payer can no longer act on shows: it ran (its result), it is running, or it expired. */
function sendOutcome(reply: FastifyReply, frame: PageFrame, status: number, operation: Operation, now: Date, notice?: string): FastifyReply {
  const { m } = frame;
  const block = operationBlock(operation, now);
  if (block === 'expired') return sendPage(reply, frame, status, m.operation.expiredTitle, noticeContent(m.operation.expired));
  if (block === 'running')
    return sendPage(reply, frame, status, m.operation.processingTitle, noticeContent(notice ? `${notice} ${m.operation.processing}` : m.operation.processing));
  const page = resultContent(m, operation, operationResult(operation, now).result, notice);
  return sendPage(reply, frame, status, page.title, page.body);
}

/** The operation a payer may go on with, or the page saying why not (undefined: that page was sent). */
async function runnable(
  request: FastifyRequest,
  reply: FastifyReply,
  frame: PageFrame,
  ref: string,
  status: number,
): Promise<RunnableOperation | FastifyReply> {
  try {
    return await runnableOperation(request.ctx, ref);
  } catch (error) {
    const { m } = frame;
    if (kindOf(error) === 'forbidden') return sendPage(reply, frame, 422, m.operation.cannotRunTitle, noticeContent(m.operation.cannotRun));
    if (kindOf(error) !== 'state') throw error;
    const { operation } = await openOperation(request.ctx, ref);
    const now = request.ctx.clocks.of(operation.receiverId).now();
    const block = operationBlock(operation, now);
    if (block === 'ran') return sendOutcome(reply, frame, 409, operation, now, status === 200 ? m.operation.ran : undefined);
    return sendOutcome(reply, frame, status !== 200 ? status : block === 'expired' ? 410 : 409, operation, now);
  }
}

const viewOf = (found: RunnableOperation, frame: PageFrame): OperationView => ({ ...found, m: frame.m });

export function operationRoutes(app: FastifyInstance): void {
  const start = async (request: FastifyRequest<{ Querystring: Query }>, reply: FastifyReply, ref: string, status: number, values: Form, errors: FormErrors) => {
    const found = await runnable(request, reply, pageFrame(request, reply, request.url.split('?')[0]!), ref, status);
    if (!('operation' in found)) return found;
    const frame = pageFrame(request, reply, operationPath(found.operation));
    if (found.operation.state === 'authenticated') return reply.redirect(`${operationPath(found.operation)}/authorize`, 303);
    const view = viewOf(found, frame);
    const fixed = originBank(found.content, found.merchant);
    if (fixed && !request.ctx.banks.connectorFor(fixed.bankId))
      return sendPage(reply, frame, 403, frame.m.noConnectorTitle, noticeContent(frame.m.operation.noConnector(fixed.name)));
    const bank = fixed ?? operationBanks(request.ctx, found.merchant).find((b) => b.bankId === request.query.bank);
    if (!bank) return sendPage(reply, frame, status, frame.m.operation.title, chooseBankPage(view, operationBanks(request.ctx, found.merchant), errors));
    return sendPage(reply, frame, status, frame.m.bankLogin(bank.name), operationLoginPage(view, bank, reply.generateCsrf(), { rut: values.rut }, errors));
  };
  app.get<{ Params: { ref: string }; Querystring: Query }>(`${OPERATION_PAGES_PATH}/:ref`, async (request, reply) =>
    start(request, reply, request.params.ref, 200, {}, {}),
  );

  app.post<{ Params: Params; Body: Form; Querystring: Query }>(
    `${OPERATION_PAGES_PATH}/:id/login`,
    { preHandler: app.csrfProtection },
    async (request, reply) => {
      const body = request.body ?? {};
      const id = operationId(request);
      const again = (status: number, errors: FormErrors) => start(request, reply, id, status, body, errors);
      try {
        await signInForOperation(request.ctx, id, request.query.bank, { identifier: body.rut ?? '', password: body.password ?? '' });
        return reply.redirect(`${OPERATION_PAGES_PATH}/${id}/authorize`, 303);
      } catch (error) {
        const { m } = pageFrame(request, reply, '');
        if (kindOf(error) === 'validation') {
          const fields = fieldsOf(error as DomainError);
          return again(400, {
            rut: fields.has('rut') ? m.rutError : undefined,
            password: fields.has('password') ? m.passwordError : undefined,
            bank_id: fields.has('bank_id') ? m.operation.bankError : undefined,
          });
        }
        if (kindOf(error) === 'unavailable') return again(503, { form: m.bankUnavailable });
        if (kindOf(error) === 'state' || kindOf(error) === 'forbidden') return again(409, {});
        throw error;
      }
    },
  );

  const authorize = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, errors: FormErrors, notice?: string) => {
    const id = operationId(request);
    const frame = pageFrame(request, reply, `${OPERATION_PAGES_PATH}/${id}/authorize`);
    const found = await runnable(request, reply, frame, id, status);
    if (!('operation' in found)) return found;
    if (found.operation.state !== 'authenticated') {
      if (status === 200) return reply.redirect(`${OPERATION_PAGES_PATH}/${id}`, 303);
      return sendOutcome(reply, frame, status, found.operation, request.ctx.clock.now(), notice);
    }
    const page: Html = operationAuthorizePage(
      viewOf(found, frame),
      request.ctx.banks.connectorFor(found.operation.bankId!)!.challenge,
      reply.generateCsrf(),
      errors,
    );
    return sendPage(reply, frame, status, frame.m.authorizeTitle, page);
  };
  app.get<{ Params: Params }>(`${OPERATION_PAGES_PATH}/:id/authorize`, async (request, reply) => authorize(request, reply, 200, {}));
  app.post<{ Params: Params; Body: Form }>(`${OPERATION_PAGES_PATH}/:id/authorize`, { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = request.body ?? {};
    const id = operationId(request);
    const answers = ['c1', 'c2', 'c3'].map((field) => (body[field] ?? '').trim());
    try {
      await runOperation(request.ctx, id, answers);
      return reply.redirect(`${OPERATION_PAGES_PATH}/${id}/result`, 303);
    } catch (error) {
      const { m } = pageFrame(request, reply, '');
      if (kindOf(error) === 'validation') return authorize(request, reply, 400, { coordinates: m.coordinatesError });
      if (kindOf(error) === 'state') return authorize(request, reply, 409, {}, m.operation.alreadySubmitted);
      throw error;
    }
  });

  app.get<{ Params: Params }>(`${OPERATION_PAGES_PATH}/:id/result`, async (request, reply) => {
    const id = operationId(request);
    const frame = pageFrame(request, reply, `${OPERATION_PAGES_PATH}/${id}/result`);
    const { operation } = await openOperation(request.ctx, id);
    const now = request.ctx.clock.now();
    const block = operationBlock(operation, now);
    if (!block) return reply.redirect(`${OPERATION_PAGES_PATH}/${id}`, 303);
    return sendOutcome(reply, frame, block === 'expired' ? 410 : 200, operation, now);
  });
}
