// Snapshots of sandbox accounts: record an account's whole state, list and remove its snapshots,
// and restore one before each test. Registered inside the sandbox accounts' scope (accounts.ts), so
// the same callers are let in, for the accounts the sandbox made (docs/testing-in-ci.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { listSnapshots, removeSnapshot, restoreSnapshot, takeSnapshot } from '../../app/account-snapshots.js';
import { sandboxCallerOf } from './door.js';

const tags = ['Quipu: sandbox'];

const Snapshot = Type.Object({
  snapshot_id: Type.String(),
  receiver_id: Type.Integer(),
  created_at: Type.String({ format: 'date-time', description: 'When it was taken, in real time' }),
  rows: Type.Integer({ description: "The account's records it holds" }),
});
const OfAccount = Type.Object({ receiver_id: Type.Integer() });
const OneSnapshot = Type.Object({ receiver_id: Type.Integer(), snapshot_id: Type.String() });

export const accountSnapshotRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sandbox/accounts/:receiver_id/snapshots',
    {
      schema: {
        tags,
        summary: "Record the account's whole state: every record, its clock and its messages' schedule",
        params: OfAccount,
        response: { 200: Snapshot },
      },
      config: { sandboxAction: 'sandbox.snapshot.take' },
    },
    async (request) => takeSnapshot(request.ctx, request.params.receiver_id, sandboxCallerOf(request)),
  );

  app.get(
    '/sandbox/accounts/:receiver_id/snapshots',
    { schema: { tags, summary: "The account's snapshots, oldest first", params: OfAccount, response: { 200: Type.Object({ items: Type.Array(Snapshot) }) } } },
    async (request) => ({ items: await listSnapshots(request.ctx, request.params.receiver_id) }),
  );

  app.post(
    '/sandbox/accounts/:receiver_id/snapshots/:snapshot_id/restore',
    {
      schema: {
        tags,
        summary: 'Bring the account back to the snapshot exactly, in one transaction',
        params: OneSnapshot,
        response: { 200: Snapshot },
      },
      config: { sandboxAction: 'sandbox.snapshot.restore' },
    },
    async (request) => restoreSnapshot(request.ctx, request.params.receiver_id, request.params.snapshot_id, sandboxCallerOf(request)),
  );

  app.delete(
    '/sandbox/accounts/:receiver_id/snapshots/:snapshot_id',
    {
      schema: { tags, summary: 'Remove a snapshot', params: OneSnapshot, response: { 204: Type.Null() } },
      config: { sandboxAction: 'sandbox.snapshot.delete' },
    },
    async (request, reply) => {
      await removeSnapshot(request.ctx, request.params.receiver_id, request.params.snapshot_id, sandboxCallerOf(request));
      return reply.code(204).send(null);
    },
  );
};
