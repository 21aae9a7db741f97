// The operation descriptor API v1: an operation id and its encrypted descriptor. Registered in the
// v3 scope (v3/index.ts): same authentication (x-api-key, as the provider's documentation shows, or
// a bearer token, as the contract says), error shape and body rules.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { issueDescriptor } from '../../app/issue-descriptor.js';
import type { FieldError } from '../../domain/errors.js';
import { DESCRIPTOR_PARAMS_FIELDS, DESCRIPTOR_REQUEST_FIELDS } from '../../domain/operation-descriptor.js';
import { dropEmptyMembers } from '../body-normalizer.js';
import { schemaFromFields } from '../field-schema.js';
import { DESCRIPTOR_EXAMPLE } from '../request-examples.js';
import { v3Responses } from '../schemas.js';
import { schemaFindings } from '../validation.js';
import { warnAbout } from '../warnings.js';

// Unknown members, at the top and in params, are ignored and named (ignored-fields.ts). A descriptor
// without a currency transfers pesos: an unknown member beside no currency_code may be it misspelled.
const DescriptorBody = Type.Object(
  {
    ...schemaFromFields(DESCRIPTOR_REQUEST_FIELDS, 'json').properties,
    params: Type.Object(schemaFromFields(DESCRIPTOR_PARAMS_FIELDS, 'json').properties, { description: 'The transfer; every member optional' }),
  },
  { examples: [DESCRIPTOR_EXAMPLE] },
);

const OperationCreated = Type.Object({
  operation: Type.Object({
    id: Type.String({ description: 'Unique operation identifier (UUID)' }),
    description: Type.String({
      description: "The encrypted descriptor, standard Base64: hand it (or the id) to the SDK, which runs the operation at the payer's bank",
    }),
  }),
});

export const descriptorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/descriptor/payment',
    {
      schema: {
        tags: ['Operation descriptors'],
        summary: 'Create payment operation descriptor',
        body: DescriptorBody,
        response: v3Responses(OperationCreated, { body: true }),
      },
      attachValidation: true,
      config: { ignoreUnknownFields: true, moneyMembers: ['params.currency_code'] },
      // Generated SDKs send unset members of params as null too: not given, as at the top level.
      preValidation: (request, _reply, done) => {
        dropEmptyMembers((request.body as { params?: unknown } | undefined)?.params);
        done();
      },
    },
    async (request, reply) => {
      const doubts: FieldError[] = [];
      const issued = await issueDescriptor(request.ctx, request.merchant!, request.body as Record<string, unknown>, schemaFindings(request), doubts);
      warnAbout(request, reply, doubts);
      return { operation: { id: issued.operationId, description: issued.description } };
    },
  );
};
