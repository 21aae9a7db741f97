// A descriptor's decrypted content, for a developer debugging what their app sent: the account's
// own operations only, and only where the sandbox exists (never in a production installation).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { showDescriptor } from '../../app/operation-queries.js';

export const descriptorSandboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/sandbox/descriptors/:id',
    {
      schema: {
        tags: ['Quipu: sandbox'],
        summary: "A descriptor's decrypted content: the operation id, or the descriptor itself (URL-encoded)",
        params: Type.Object({ id: Type.String({ maxLength: 16384, description: 'Operation identifier, or the descriptor' }) }),
      },
    },
    async (request) => showDescriptor(request.ctx, request.params.id, request.merchant!.receiverId),
  );
};
