// Instant payment API v2: integrators create receivers (child collection accounts) with a form.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createReceiver } from '../../app/create-receiver.js';
import type { FieldError } from '../../domain/errors.js';
import type { RawValue } from '../../domain/field-rules.js';
import { RECEIVER_REQUEST_FIELDS } from '../../domain/receiver-request.js';
import { schemaFromFields } from '../field-schema.js';
import { RECEIVER_EXAMPLE } from '../request-examples.js';
import { ReceiverCreated, v2Responses } from '../schemas.js';
import { schemaFindings } from '../validation.js';
import { warnAbout } from '../warnings.js';
import { FORM_ONLY } from './form-body.js';
import type { V2RouteOptions } from './route-options.js';

const ReceiverBody = schemaFromFields(RECEIVER_REQUEST_FIELDS, 'form', RECEIVER_EXAMPLE);

export const v2ReceiverRoutes: FastifyPluginAsyncTypebox<V2RouteOptions> = async (app, { alias }) => {
  app.post(
    '/receivers',
    {
      schema: {
        hide: alias,
        tags: ['v2'],
        summary: 'Create receiver (v2)',
        consumes: FORM_ONLY,
        body: ReceiverBody,
        response: v2Responses(ReceiverCreated, { feature: true, body: true, idempotent: true }),
      },
      attachValidation: true,
      config: { auditAction: 'receiver.create', idempotent: true, formBody: true, ignoreUnknownFields: true },
    },
    async (request, reply) => {
      const doubts: FieldError[] = [];
      const created = await createReceiver(request.ctx, request.merchant!, request.body as Record<string, RawValue>, schemaFindings(request), doubts);
      warnAbout(request, reply, doubts);
      return { receiver_id: String(created.receiver_id), secret: created.secret };
    },
  );
};
