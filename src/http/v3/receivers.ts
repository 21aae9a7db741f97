// Instant payment API v3: integrators create receivers (child collection accounts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createReceiver } from '../../app/create-receiver.js';
import type { FieldError } from '../../domain/errors.js';
import type { RawValue } from '../../domain/field-rules.js';
import { RECEIVER_REQUEST_FIELDS } from '../../domain/receiver-request.js';
import { schemaFromFields } from '../field-schema.js';
import { RECEIVER_EXAMPLE } from '../request-examples.js';
import { ReceiverCreated, v3Responses } from '../schemas.js';
import { schemaFindings } from '../validation.js';
import { warnAbout } from '../warnings.js';

export const v3ReceiverRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v3/receivers',
    {
      schema: {
        tags: ['Receivers'],
        summary: 'Create receiver',
        body: schemaFromFields(RECEIVER_REQUEST_FIELDS, 'json', RECEIVER_EXAMPLE),
        response: v3Responses(ReceiverCreated, { feature: true, body: true, idempotent: true }),
      },
      attachValidation: true,
      config: { auditAction: 'receiver.create', idempotent: true, ignoreUnknownFields: true },
    },
    async (request, reply) => {
      const doubts: FieldError[] = [];
      const created = await createReceiver(request.ctx, request.merchant!, request.body as Record<string, RawValue>, schemaFindings(request), doubts);
      warnAbout(request, reply, doubts);
      return { receiver_id: String(created.receiver_id), secret: created.secret };
    },
  );
};
