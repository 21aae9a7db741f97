// Sandbox accounts on demand: POST /sandbox/accounts creates a throwaway developer-mode account,
// DELETE /sandbox/accounts/{receiver_id} removes it with everything of it, behind the sandbox's door
// (door.ts): the installation's OPERATOR_TOKEN, or without one a direct caller on its own machine.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createSandboxAccount, deleteSandboxAccount } from '../../app/sandbox-accounts.js';
import type { SandboxFixtures } from '../../domain/sandbox-fixtures.js';
import { emptyObjectIfNoBody } from '../body-normalizer.js';
import { SANDBOX_ACCOUNT_EXAMPLE } from '../request-examples.js';
import { schemaFindings } from '../validation.js';
import { accountSnapshotRoutes } from './account-snapshots.js';
import { auditRefusal, requireSandboxCaller, sandboxCallerOf } from './door.js';
import { CreatedFixturesSchema, SandboxFixturesSchema } from './fixtures-schema.js';

const tags = ['Quipu: sandbox'];

const Created = Type.Object({
  receiver_id: Type.Integer(),
  secret: Type.String({ description: 'The receiver secret: v2 signatures and notifications' }),
  api_key: Type.String({ description: 'The v3 API key (x-api-key)' }),
  dashboard: Type.Optional(Type.Object({ email: Type.String(), password: Type.String({ description: 'Shown once' }) })),
  fixtures: Type.Optional(CreatedFixturesSchema),
});
const Create = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "The account's name (default: Sandbox account)" })),
    notify_url: Type.Optional(Type.String({ maxLength: 500, description: 'Where its payments are notified' })),
    dashboard: Type.Optional(Type.Boolean({ description: 'Also a dashboard owner with a generated password' })),
    refunds: Type.Optional(Type.Boolean({ description: 'The account may refund its payments (default false)' })),
    fixtures: Type.Optional(SandboxFixturesSchema),
  },
  { additionalProperties: false, examples: [SANDBOX_ACCOUNT_EXAMPLE] },
);

export const sandboxAccountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('sandboxCaller', null);
  app.addHook('onRequest', requireSandboxCaller);
  app.addHook('onResponse', auditRefusal);
  // Snapshots of the accounts, behind the same door.
  await app.register(accountSnapshotRoutes);

  app.post(
    '/sandbox/accounts',
    {
      schema: {
        tags,
        summary: 'Create a throwaway developer-mode account, with the records it starts from (fixtures: docs/sandbox-fixtures.schema.json)',
        body: Create,
        response: { 200: Created },
      },
      config: { sandboxAction: 'sandbox.account.create' },
      // Every member is optional: no body at all is an account with the defaults.
      preValidation: emptyObjectIfNoBody,
      // The schema's findings are named with the fixtures' own problems, in one 400.
      attachValidation: true,
    },
    async (request) => {
      // A body that is not an object is refused here, before its members are read.
      const found = schemaFindings(request);
      const body = request.body;
      return createSandboxAccount(
        request.ctx,
        {
          name: body.name,
          notifyUrl: body.notify_url,
          dashboard: body.dashboard,
          refunds: body.refunds,
          // Each status is one of its fixture's states, but where the schema's findings say otherwise.
          fixtures: body.fixtures as SandboxFixtures | undefined,
        },
        sandboxCallerOf(request),
        found,
      );
    },
  );

  app.delete(
    '/sandbox/accounts/:receiver_id',
    {
      schema: {
        tags,
        summary: 'Remove an account the sandbox made and everything of it, in one transaction',
        params: Type.Object({ receiver_id: Type.Integer() }),
        response: { 204: Type.Null() },
      },
      config: { sandboxAction: 'sandbox.account.delete' },
    },
    async (request, reply) => {
      await deleteSandboxAccount(request.ctx, request.params.receiver_id, sandboxCallerOf(request));
      return reply.code(204).send(null);
    },
  );
};
