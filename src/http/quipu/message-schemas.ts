// The shapes the notifications, emails and events APIs share: where a message's delivery stands
// and what an attempt logged (src/delivery/message-view.ts builds them).
import { type TSchema, Type } from '@sinclair/typebox';

export const instant = Type.String({ format: 'date-time' });

export const nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });

/** The delivery state's properties; `statuses` and what "delivered" means vary with the API. */
export function deliveryStateProperties(statuses: readonly string[], statusDescription: string, deliveredDescription: string) {
  return {
    status: Type.String({ enum: [...statuses], description: statusDescription }),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    next_attempt_at: nullable(instant, 'When the next attempt is due, while pending'),
    delivered_at: nullable(instant, deliveredDescription),
    created_at: instant,
    updated_at: instant,
  };
}

/** What every attempt logs before its outcome's details, which each API describes in its own terms. */
export const attemptProperties = {
  number: Type.Integer(),
  trigger: Type.String({ enum: ['first', 'retry', 'resend'] }),
  due_at: Type.String({
    format: 'date-time',
    description: 'When the schedule made it due; it starts later when the worker was busy or the developer clock was moved past it',
  }),
  started_at: Type.String({ format: 'date-time', description: 'Also the t of its signature, for signed kinds' }),
  latency_ms: Type.Integer(),
  outcome: Type.String({ enum: ['delivered', 'failed'] }),
};

export const idParams = (description: string) => Type.Object({ id: Type.String({ maxLength: 64, description }) });
