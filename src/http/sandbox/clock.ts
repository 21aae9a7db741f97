// An account's developer clock over HTTP, with the account's credentials: GET reads it, POST moves
// it forward ({"advance": "3h"} or {"to": "<ISO 8601>"}), POST /sandbox/clock/reset returns the
// account to the installation's clock, its records' dates brought back with it. In the sandbox's
// developer scope (index.ts): only the account's own records follow its clock.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { accountClock, moveAccountClock, resetAccountClock } from '../../app/developer-clock.js';
import { parseDateTime } from '../../domain/dates.js';
import { fieldError, validationError } from '../../domain/errors.js';
import { CLOCK_MOVE_EXAMPLE } from '../request-examples.js';

const Now = Type.Object({
  now: Type.String({ format: 'date-time', description: "The account's clock, ISO 8601" }),
  offset_ms: Type.Integer({ description: "How far the account's clock is ahead of real time, in milliseconds (0: real time)" }),
  own: Type.Boolean({ description: "Whether the account runs on a clock of its own (moved), or follows the installation's" }),
});
const Move = Type.Object(
  {
    advance: Type.Optional(Type.String({ maxLength: 64, description: 'Move forward by a duration: 90s, 5m, 3h, 2d, 1d12h' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Move forward to this instant (not before now)' })),
  },
  { additionalProperties: false, examples: [CLOCK_MOVE_EXAMPLE] },
);
const tags = ['Quipu: sandbox'];
function clockView(request: FastifyRequest) {
  const clock = accountClock(request.ctx, request.merchant!.receiverId);
  return { now: clock.now.toISOString(), offset_ms: clock.offsetMs, own: clock.own };
}

export const clockRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/sandbox/clock', { schema: { tags, summary: "Read the account's clock", response: { 200: Now } } }, async (request) => clockView(request));

  app.post(
    '/sandbox/clock',
    {
      schema: { tags, summary: "Move the account's clock forward (every other account keeps its own time)", body: Move, response: { 200: Now } },
      config: { auditAction: 'developer.clock' },
    },
    async (request) => {
      const { advance, to } = request.body ?? {};
      if (advance !== undefined && to !== undefined) throw validationError([{ field: 'to', message: 'give either advance or to, not both' }]);
      const receiverId = request.merchant!.receiverId;
      if (advance !== undefined) await moveAccountClock(request.ctx, receiverId, { advance });
      else if (to !== undefined) await moveAccountClock(request.ctx, receiverId, { to: parseDateTime(to)! });
      else throw fieldError('advance', 'is required (or give to)');
      return clockView(request);
    },
  );

  app.post(
    '/sandbox/clock/reset',
    {
      schema: {
        tags,
        summary: "Return the account to the installation's clock; its records' dates (expiries, schedules, deliveries due) come back by the same amount",
        response: { 200: Now },
      },
      config: { auditAction: 'developer.clock' },
    },
    async (request) => {
      await resetAccountClock(request.ctx, request.merchant!.receiverId);
      return clockView(request);
    },
  );
};
