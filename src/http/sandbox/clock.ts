// The developer clock over HTTP: GET reads it, POST moves it forward ({"advance": "3h"} or
// {"to": "<ISO 8601>"}), POST /sandbox/clock/reset brings it back to real time. In the sandbox's
// developer scope (index.ts): the clock is shared by the whole installation.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { moveClock, resetClock } from '../../app/developer-clock.js';
import { parseDateTime } from '../../domain/dates.js';
import { fieldError, validationError } from '../../domain/errors.js';
import { CLOCK_MOVE_EXAMPLE } from '../request-examples.js';

const Now = Type.Object({
  now: Type.String({ format: 'date-time', description: 'The developer clock, ISO 8601' }),
  offset_ms: Type.Integer({ description: 'How far the developer clock is ahead of real time, in milliseconds (0: real time)' }),
});
const Move = Type.Object(
  {
    advance: Type.Optional(Type.String({ maxLength: 64, description: 'Move forward by a duration: 90s, 5m, 3h, 2d, 1d12h' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Move forward to this instant (not before now)' })),
  },
  { additionalProperties: false, examples: [CLOCK_MOVE_EXAMPLE] },
);
const tags = ['Quipu: sandbox'];
const clockView = (now: Date, offsetMs: number) => ({ now: now.toISOString(), offset_ms: offsetMs });

export const clockRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/sandbox/clock', { schema: { tags, summary: 'Read the developer clock', response: { 200: Now } } }, async (request) =>
    clockView(request.ctx.clock.now(), request.ctx.clock.offsetMs),
  );

  app.post(
    '/sandbox/clock',
    { schema: { tags, summary: 'Move the developer clock forward', body: Move, response: { 200: Now } }, config: { auditAction: 'developer.clock' } },
    async (request) => {
      const { advance, to } = request.body ?? {};
      if (advance !== undefined && to !== undefined) throw validationError([{ field: 'to', message: 'give either advance or to, not both' }]);
      let now: Date;
      if (advance !== undefined) now = await moveClock(request.ctx, { advance });
      else if (to !== undefined) now = await moveClock(request.ctx, { to: parseDateTime(to)! });
      else throw fieldError('advance', 'is required (or give to)');
      return clockView(now, request.ctx.clock.offsetMs);
    },
  );

  app.post(
    '/sandbox/clock/reset',
    {
      schema: { tags, summary: 'Bring the developer clock back to real time; job runs and deliveries due later come back with it', response: { 200: Now } },
      config: { auditAction: 'developer.clock' },
    },
    async (request) => clockView(await resetClock(request.ctx), request.ctx.clock.offsetMs),
  );
};
