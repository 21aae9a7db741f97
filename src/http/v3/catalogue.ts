// Instant payment API v3: banks, the account's payment methods, and predictions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { predictPayment } from '../../app/predict-payment.js';
import { formatDateTime } from '../../domain/dates.js';
import type { FieldError } from '../../domain/errors.js';
import { amountToNumber } from '../../domain/money.js';
import { bankList, paymentMethodList, paymentMethodsOwner } from '../catalogue-resources.js';
import { BankList, PaymentMethodList, Prediction, v3Responses } from '../schemas.js';
import { warnAbout } from '../warnings.js';

const query = (description: string) => Type.String({ maxLength: 255, description });
// Other parameters are ignored and named (route config `ignoreUnknownFields`), as the provider's schema allows them.
const PredictQuery = Type.Object({
  payer_email: query("Payer's email"),
  bank_id: query('Origin bank identifier'),
  amount: query('Payment amount'),
  currency: query('ISO 4217 currency code'),
});

export const v3CatalogueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v3/banks', { schema: { tags: ['Banks'], summary: 'List banks', response: v3Responses(BankList) } }, async (request) =>
    bankList(request.ctx.config.publicBaseUrl, request.merchant!.developer),
  );

  app.get(
    '/v3/merchants/:id/paymentMethods',
    {
      schema: {
        tags: ['Merchants'],
        summary: "List the account's payment methods",
        params: Type.Object({ id: Type.Integer({ description: 'Collection account identifier (receiver_id)' }) }),
        response: v3Responses(PaymentMethodList, { id: true }),
      },
    },
    async (request) => {
      const owner = await paymentMethodsOwner(request.ctx.merchants, request.merchant!, request.params.id);
      return paymentMethodList(request.ctx.config.publicBaseUrl, owner);
    },
  );

  app.get(
    '/v3/predict',
    {
      schema: { tags: ['Predict'], summary: 'Predict a payment', querystring: PredictQuery, response: v3Responses(Prediction) },
      config: { ignoreUnknownFields: true },
    },
    async (request, reply) => {
      const doubts: FieldError[] = [];
      const p = await predictPayment(request.ctx, request.merchant!, request.query, doubts);
      warnAbout(request, reply, doubts);
      return {
        result: p.result,
        max_amount: amountToNumber(p.maxAmount),
        new_destinatary_max_amount: amountToNumber(p.newDestinataryMaxAmount),
        cool_down_date: formatDateTime(p.coolDownDate),
      };
    },
  );
};
