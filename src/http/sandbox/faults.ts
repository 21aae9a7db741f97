// Faults on demand over HTTP, with the account's credentials (docs/sandbox-faults.md): PUT sets the
// account's faults (replacing any it had, its counts starting again), GET reads them with what is
// left of their counts, DELETE removes them. In the sandbox's developer scope (index.ts), which the
// faults themselves never touch: a test can always turn them off.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import { type FaultState, sandboxFaultsOf, setSandboxFaults } from '../../app/sandbox-faults.js';
import {
  FAULT_API_STATUSES,
  type FaultSettingJson,
  faultsFromSetting,
  MAX_FAULT_COUNT,
  MAX_FAULT_SEED,
  MAX_RETRY_AFTER_SECONDS,
  DEFAULT_RETRY_AFTER_SECONDS,
} from '../../domain/sandbox-faults.js';
import { FAULTS_EXAMPLE } from '../request-examples.js';

const tags = ['Quipu: sandbox'];
const count = (what: string) => Type.Integer({ minimum: 1, maximum: MAX_FAULT_COUNT, description: `How many of the account's next API requests ${what}` });
const closed = { additionalProperties: false } as const;

const Api = Type.Object(
  {
    status: Type.Integer({ enum: [...FAULT_API_STATUSES], description: '429 (rate limited) or 503 (unavailable)' }),
    count: count('are refused, before anything runs'),
    retry_after_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_RETRY_AFTER_SECONDS,
        description: `The Retry-After header of each refusal (default ${DEFAULT_RETRY_AFTER_SECONDS})`,
      }),
    ),
  },
  closed,
);
const Drop = Type.Object({ count: count('run and commit, then have their connection closed instead of answered (after any refusals)') }, closed);
const Bank = Type.Object(
  { transfers: Type.String({ enum: ['uncertain'], description: 'DemoBank answers every transfer uncertain until the fault is removed, then as it decided' }) },
  closed,
);
const Notifications = Type.Object(
  {
    duplicate: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'The probability that a notification is sent twice (1: every one)' })),
    out_of_order: Type.Optional(Type.Boolean({ description: 'Notifications due together are sent one after another, in an order other than their own' })),
  },
  closed,
);
const Setting = Type.Object(
  {
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_FAULT_SEED, description: 'The same seed gives the same faults (default 0)' })),
    api: Type.Optional(Api),
    drop_connection: Type.Optional(Drop),
    bank: Type.Optional(Bank),
    notifications: Type.Optional(Notifications),
  },
  { ...closed, examples: [FAULTS_EXAMPLE] },
);
const Remaining = Type.Object({ remaining: Type.Integer({ description: 'How many are left' }) });
const View = Type.Object({
  seed: Type.Integer(),
  api: Type.Union([Type.Composite([Api, Remaining]), Type.Null()]),
  drop_connection: Type.Union([Type.Composite([Drop, Remaining]), Type.Null()]),
  bank: Type.Union([Bank, Type.Null()]),
  notifications: Type.Union([Notifications, Type.Null()]),
});

function view({ faults, counters }: FaultState): Static<typeof View> {
  return {
    seed: faults?.seed ?? 0,
    api: faults?.api
      ? { status: faults.api.status, count: faults.api.count, retry_after_seconds: faults.api.retryAfterSeconds, remaining: counters.refusalsLeft }
      : null,
    drop_connection: faults?.dropConnection ? { count: faults.dropConnection.count, remaining: counters.dropsLeft } : null,
    bank: faults?.bank ?? null,
    notifications: faults?.notifications ? { duplicate: faults.notifications.duplicate, out_of_order: faults.notifications.outOfOrder } : null,
  };
}

export const faultRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/sandbox/faults',
    { schema: { tags, summary: "Read the account's faults on demand and what is left of their counts", response: { 200: View } } },
    async (request) => view(await sandboxFaultsOf(request.ctx, request.merchant!.receiverId)),
  );

  app.put(
    '/sandbox/faults',
    {
      schema: {
        tags,
        summary:
          "Set the account's faults on demand (replacing any it had): refused or dropped API requests, uncertain transfers, duplicate or reordered notifications",
        body: Setting,
        response: { 200: View },
      },
      config: { auditAction: 'developer.faults' },
    },
    async (request) => view(await setSandboxFaults(request.ctx, request.merchant!.receiverId, faultsFromSetting(request.body as FaultSettingJson))),
  );

  app.delete(
    '/sandbox/faults',
    { schema: { tags, summary: "Remove the account's faults on demand", response: { 204: Type.Null() } }, config: { auditAction: 'developer.faults' } },
    async (request, reply) => {
      await setSandboxFaults(request.ctx, request.merchant!.receiverId, null);
      return reply.code(204).send(null);
    },
  );
};
