// Developer-mode trigger of the institution's credential-change report (contract, token rule 3):
// POST /sandbox/institutions/<bank_id>/users/<rut>/credential-change. The tokens of the calling
// account's consents for that user stop working; other accounts are not touched.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { withdrawConsents } from '../../app/withdraw-consents.js';
import { findBank } from '../../domain/banks.js';
import { DomainError, fieldError } from '../../domain/errors.js';
import { formatRut, parseRut } from '../../domain/rut.js';
import { errorHandler, V3_STATUS } from '../errors.js';
import { requireMerchant } from '../plugins/auth.js';

const Params = Type.Object({ bank_id: Type.String({ maxLength: 5 }), rut: Type.String({ maxLength: 16 }) });
const Result = Type.Object({ message: Type.String(), revoked_tokens: Type.Integer() });

export const oauthSandboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.setErrorHandler(errorHandler(V3_STATUS));
  app.addHook('onRequest', async (request, reply) => {
    await requireMerchant(request, reply);
    if (!request.merchant!.developer) throw new DomainError('forbidden', 'The sandbox is only for developer-mode accounts');
  });

  app.post(
    '/sandbox/institutions/:bank_id/users/:rut/credential-change',
    { schema: { tags: ['Quipu: sandbox'], summary: "Report that a user's credentials changed at an institution", params: Params, response: { 200: Result } } },
    async (request) => {
      const { bank_id: bankId } = request.params;
      if (!findBank(bankId, true)) throw fieldError('bank_id', 'is not a bank of the catalogue');
      const rut = parseRut(request.params.rut);
      if (!rut) throw fieldError('rut', 'is not a valid RUT');
      const revoked = await withdrawConsents(request.ctx, bankId, formatRut(rut), request.merchant!.receiverId);
      return { message: `Credential change of ${formatRut(rut)} at ${bankId} recorded`, revoked_tokens: revoked };
    },
  );
};
