// The result of an operation run from a descriptor, shaped as the provider's SDKs return it to the
// app: here the merchant's server reads it with the account's credentials.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { getOperationResult } from '../../app/operation-queries.js';
import { SDK_RESULTS } from '../../domain/operation.js';
import { idParams } from './message-schemas.js';

const OperationResult = Type.Object({
  operationId: Type.String(),
  result: Type.String({
    enum: [...SDK_RESULTS],
    description: 'OK: transferred; ERROR: not transferred (or expired unrun); WARNING: the bank did not say; CONTINUE: not finished yet',
  }),
  failureReason: Type.Optional(Type.String({ description: 'TRANSFER_FAILED, TRANSFER_UNCERTAIN or OPERATION_EXPIRED' })),
  exitTitle: Type.String(),
  exitMessage: Type.String(),
  exitUrl: Type.Optional(Type.String()),
  events: Type.Array(
    Type.Object({ name: Type.String(), type: Type.String({ enum: ['info', 'error', 'warning'] }), timestamp: Type.String({ format: 'date-time' }) }),
  ),
});

export const operationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/quipu/v1/operations/:id',
    {
      schema: {
        tags: ['Quipu: operations'],
        summary: "Get an operation's result, as the SDKs return it",
        params: idParams('Operation identifier'),
        response: { 200: OperationResult },
      },
    },
    async (request) => getOperationResult(request.ctx, request.merchant!, request.params.id),
  );
};
