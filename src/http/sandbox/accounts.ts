// Sandbox accounts on demand: POST /sandbox/accounts creates a throwaway developer-mode account,
// DELETE /sandbox/accounts/{receiver_id} removes it with everything of it. Authorised by the
// installation's OPERATOR_TOKEN as a bearer token; where no OPERATOR_TOKEN is set, only an
// installation listening on loopback alone answers, and only to loopback callers (docs/testing-in-ci.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSandboxAccount, deleteSandboxAccount } from '../../app/sandbox-accounts.js';
import { DomainError } from '../../domain/errors.js';
import type { SandboxFixtures } from '../../domain/sandbox-fixtures.js';
import { isThisMachine } from '../../domain/network-address.js';
import { requireOperator } from '../operator/auth.js';
import { SANDBOX_ACCOUNT_EXAMPLE } from '../request-examples.js';
import { accountSnapshotRoutes } from './account-snapshots.js';
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

/** The operator's token where one is set; else the installation must listen on loopback alone and the caller be local. */
async function requireSandboxCaller(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.ctx.config.operatorToken) return requireOperator(request, reply);
  if (isThisMachine(request.ctx.config.host) && isThisMachine(request.ip)) return;
  throw new DomainError('forbidden', 'Set OPERATOR_TOKEN to create sandbox accounts on an installation that listens beyond loopback');
}

export const sandboxAccountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', requireSandboxCaller);
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
    },
    async (request) => {
      const body = request.body ?? {};
      return createSandboxAccount(request.ctx, {
        name: body.name,
        notifyUrl: body.notify_url,
        dashboard: body.dashboard,
        refunds: body.refunds,
        // The schema held each status to its fixture's states.
        fixtures: body.fixtures as SandboxFixtures | undefined,
      });
    },
  );

  app.delete(
    '/sandbox/accounts/:receiver_id',
    {
      schema: {
        tags,
        summary: 'Remove a developer-mode account and everything of it, in one transaction',
        params: Type.Object({ receiver_id: Type.Integer() }),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await deleteSandboxAccount(request.ctx, request.params.receiver_id);
      return reply.code(204).send(null);
    },
  );
};
