// The operator API: feed the bank's credits to the collection accounts (the same path a bank
// connector and `quipu reconcile` take) and list them, above all the unmatched ones.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { getCredits } from '../../app/credit-queries.js';
import { recordCredits } from '../../app/record-credits.js';
import { CREDIT_FIELDS, type CreditStatus, parseCredits } from '../../domain/bank-credit.js';
import { MAX_CREDIT_PAGE } from '../../domain/credit-listing.js';
import type { RawValue } from '../../domain/field-rules.js';
import { schemaFromFields } from '../field-schema.js';
import { CREDIT_EXAMPLE } from '../request-examples.js';
import { creditResource } from './credit-resource.js';

const MAX_CREDITS = 1000;
const tags = ['Quipu: operator'];
const text = Type.Union([Type.String(), Type.Null()]);

// The schema checks the type and form of each field given; presence and unknown fields are left to
// the credit table's decoder, which names them with their position (credits.2.bank_reference).
const optional = Object.fromEntries(Object.entries(CREDIT_FIELDS).map(([name, rule]) => [name, { ...rule, required: false }]));
const CreditItem = { ...schemaFromFields(optional, 'json'), additionalProperties: true };

const CreditsBody = Type.Object(
  { credits: Type.Array(CreditItem, { minItems: 1, maxItems: MAX_CREDITS, description: 'Credits to collection accounts, as the bank reports them' }) },
  { additionalProperties: false, examples: [{ credits: [CREDIT_EXAMPLE] }] },
);

const Outcome = Type.Object({
  bank_reference: Type.String(),
  status: Type.String({ enum: ['matched', 'unmatched', 'duplicate'] }),
  payment_id: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
});

const Recorded = Type.Object({
  matched: Type.Integer(),
  unmatched: Type.Integer(),
  duplicates: Type.Integer(),
  results: Type.Array(Outcome),
});

const Credit = Type.Object({
  credit_id: Type.String(),
  bank_reference: Type.String(),
  account: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
  reference: text,
  credited_at: Type.String({ format: 'date-time' }),
  payer_bank_id: text,
  payer_name: text,
  payer_email: text,
  payer_personal_identifier: text,
  payer_account_number: text,
  payment_method: text,
  funds_source: text,
  status: Type.String({ enum: ['matched', 'unmatched'] }),
  reason: text,
  payment_id: text,
  source: Type.String({ description: 'operator, statement, or the bank_id of the connector that reported it' }),
  recorded_at: Type.String({ format: 'date-time' }),
});

const ListQuery = Type.Object(
  {
    status: Type.Optional(Type.String({ enum: ['matched', 'unmatched'] })),
    account: Type.Optional(Type.String({ description: 'Only credits to this account, as the credits name it' })),
    credited_from: Type.Optional(Type.String({ description: 'Only credits the bank credited at or after this ISO 8601 date-time' })),
    credited_to: Type.Optional(Type.String({ description: 'Only credits the bank credited before this ISO 8601 date-time' })),
    cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
    limit: Type.Integer({ minimum: 1, maximum: MAX_CREDIT_PAGE, default: 100 }),
  },
  { additionalProperties: false },
);

const CreditPage = Type.Object({
  credits: Type.Array(Credit),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Where the next page starts; null on the last page' }),
});

/** Unset optional fields may come as null or empty text (statements exported to JSON do that): both mean absent. */
async function dropEmptyCreditFields(request: { body: unknown }): Promise<void> {
  const credits = (request.body as { credits?: unknown } | undefined)?.credits;
  if (!Array.isArray(credits)) return;
  for (const credit of credits) {
    if (credit === null || typeof credit !== 'object') continue;
    for (const [key, value] of Object.entries(credit)) if (value === null || value === '') delete (credit as Record<string, unknown>)[key];
  }
}

export const operatorCreditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('preValidation', dropEmptyCreditFields);
  app.post(
    '/operator/v1/credits',
    { schema: { tags, summary: 'Record bank credits and reconcile them', body: CreditsBody, response: { 200: Recorded } } },
    async (request) => {
      const credits = parseCredits(request.body.credits as Record<string, RawValue>[], (index) => `credits.${index}`);
      const outcomes = await recordCredits(request.ctx, credits, 'operator');
      const count = (status: string) => outcomes.filter((o) => o.status === status).length;
      return {
        matched: count('matched'),
        unmatched: count('unmatched'),
        duplicates: count('duplicate'),
        results: outcomes.map((o) => ({
          bank_reference: o.bankReference,
          status: o.status,
          ...(o.status === 'matched' ? { payment_id: o.paymentId } : {}),
          ...(o.status === 'unmatched' ? { reason: o.reason } : {}),
        })),
      };
    },
  );

  app.get(
    '/operator/v1/credits',
    { schema: { tags, summary: 'List recorded bank credits, newest first, a page at a time', querystring: ListQuery, response: { 200: CreditPage } } },
    async (request) => {
      const { status, account, credited_from, credited_to, cursor, limit } = request.query;
      const page = await getCredits(request.ctx, {
        status: status as CreditStatus | undefined,
        account,
        creditedFrom: credited_from,
        creditedTo: credited_to,
        cursor,
        limit,
      });
      return { credits: page.credits.map(creditResource), next_cursor: page.nextCursor };
    },
  );
};
