// Instant payment API v2: banks and an account's payment methods, as v3 lists them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { bankList, paymentMethodList, paymentMethodsOwner } from '../catalogue-resources.js';
import { BankList, PaymentMethodList, v2Responses } from '../schemas.js';
import type { V2RouteOptions } from './route-options.js';

const MerchantParams = Type.Object({ id: Type.Integer({ description: 'Collection account identifier (receiver_id)' }) });

export const v2CatalogueRoutes: FastifyPluginAsyncTypebox<V2RouteOptions> = async (app, { alias }) => {
  const tags = ['v2'];

  app.get('/banks', { schema: { hide: alias, tags, summary: 'List banks (v2)', response: v2Responses(BankList) } }, async (request) =>
    bankList(request.ctx.config.publicBaseUrl, request.merchant!.developer),
  );

  app.get(
    '/merchants/:id/paymentMethods',
    {
      schema: {
        hide: alias,
        tags,
        summary: "List the account's payment methods (v2)",
        params: MerchantParams,
        response: v2Responses(PaymentMethodList, { id: true }),
      },
    },
    async (request) => {
      const owner = await paymentMethodsOwner(request.ctx.merchants, request.merchant!, request.params.id);
      return paymentMethodList(request.ctx.config.publicBaseUrl, owner);
    },
  );
};
