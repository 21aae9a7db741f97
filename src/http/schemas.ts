// Response and shared schemas of the payment APIs, as the provider publishes them. Fastify
// serialises every answer through these, so a field can neither go missing nor change type.
import { type TRef, type TSchema, Type } from '@sinclair/typebox';
import { PAYMENT_STATUSES, STATUS_DETAILS } from '../domain/payment-status.js';
import { PREDICTION_RESULTS } from '../domain/predict.js';

const str = (description: string) => Type.String({ description });
const dateTime = (description: string) => Type.String({ format: 'date-time', description });
const double = (description: string) => Type.Number({ format: 'double', description });
const literals = <T extends string>(values: readonly T[], description: string) => Type.String({ enum: [...values], description });

const ERROR_ID = 'Error';

/** Shared by reference (`$ref: 'Error'`): a scope that answers with it registers it with addSchema. */
export const ErrorBody = Type.Object(
  {
    status: Type.Integer(),
    message: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: ERROR_ID, description: 'An error: errors[] names each offending field of a 400' },
);

/** What an operation involves, which decides the errors it can answer besides the ones every operation can. */
export interface OperationTraits {
  /** Only for accounts that contracted it (confirm, refunds, receivers). */
  feature?: boolean;
  /** Names a resource by id (or by notification token). */
  id?: boolean;
  /** Reads a request body. */
  body?: boolean;
  /** Takes an Idempotency-Key. */
  idempotent?: boolean;
}

/** Each error status of an API: which operations can answer it, and what it means. */
type ErrorTable = ReadonlyArray<[status: number, when: keyof OperationTraits | 'always', description: string]>;

const IDEMPOTENCY_AND_BODY_ERRORS: ErrorTable = [
  [409, 'idempotent', 'A request with the same Idempotency-Key is still being processed; retry after Retry-After seconds'],
  [413, 'body', 'The request body is larger than the server accepts'],
  [415, 'body', 'A content type the operation does not take'],
  [422, 'idempotent', 'The Idempotency-Key was already used with a different request'],
];

/** The v3 API (docs/api-conventions.md). */
const V3_ERRORS: ErrorTable = [
  [400, 'always', 'A field breaks a rule (errors[] names each offending field), malformed JSON, or a state that forbids the operation'],
  [401, 'always', 'No credential, or one that is not recognised'],
  [403, 'feature', 'The account has not contracted this feature'],
  [404, 'id', 'Unknown id, or a resource of another account'],
  ...IDEMPOTENCY_AND_BODY_ERRORS,
  [500, 'always', 'An unexpected failure; the message names the request id (x-request-id)'],
];

/** The v2 API (docs/v2.md): a refused signature is 403, and a state refusal or an unexpected failure 503, never 500. */
const V2_ERRORS: ErrorTable = [
  [
    400,
    'always',
    'A field breaks a rule, is unknown or is given twice (errors[] names each), a body that is not a form where one is expected, or an API key with a bearer token',
  ],
  [401, 'always', 'No credential, an unknown API key or an invalid bearer token'],
  [
    403,
    'always',
    'A malformed Authorization header or a request signature that does not verify; on confirm, refunds and receivers also an account that has not contracted the operation',
  ],
  [404, 'id', 'Unknown id or notification token, or a resource of another account'],
  ...IDEMPOTENCY_AND_BODY_ERRORS,
  [503, 'always', "The payment's state does not allow the operation, or an unexpected failure (the message names the request id)"],
];

/**
 * The response map of an operation: its answer and every error it can give, all in the shared
 * `Error` shape (registered by the API's scope). Fastify serialises error replies through these
 * too, which is why `errors` stays optional even on 400: a 400 for a payment's state has none.
 */
function responsesFrom(table: ErrorTable) {
  return <T extends TSchema>(ok: T, traits: OperationTraits = {}) => {
    const errors = table
      .filter(([, when]) => when === 'always' || traits[when])
      .map(([status, , description]) => [status, Type.Ref(ERROR_ID, { description })]);
    return { 200: ok, ...(Object.fromEntries(errors) as Record<number, TRef<typeof ERROR_ID>>) };
  };
}

export const v3Responses = responsesFrom(V3_ERRORS);
export const v2Responses = responsesFrom(V2_ERRORS);

/** A body with no fields: clients may send an empty form, `{}` or nothing; any field is refused by name (ignored where the route says so). */
export const NoFields = Type.Optional(Type.Object({}, { additionalProperties: false, examples: [{}] }));

export const Message = Type.Object({ message: str('Message for the user') });

export const PaymentCreated = Type.Object({
  payment_id: str('12-character payment identifier'),
  payment_url: str('Main payment URL'),
  simplified_transfer_url: str('Simplified transfer URL'),
  transfer_url: str('Normal transfer URL'),
  app_url: str("URL that opens the payment in the provider's app"),
  ready_for_terminal: Type.Boolean({ description: 'The payment has all the data to open the app directly' }),
});

const paymentFields = {
  ...PaymentCreated.properties,
  notification_token: str('Token sent in notifications; resolves the payment through the v2 lookup'),
  receiver_id: Type.Integer({ format: 'int64', description: 'Collection account identifier' }),
  subject: str('Summary of the charge'),
  amount: double('Amount of the charge'),
  currency: str('ISO 4217 code'),
  status: literals(PAYMENT_STATUSES, 'pending, verifying or done'),
  status_detail: literals(STATUS_DETAILS, 'Detail of the status'),
  body: str('Payment details'),
  picture_url: str('Image URL'),
  receipt_url: str('Receipt URL'),
  return_url: str('Where the payer is sent after paying'),
  cancel_url: str('Where the payer is sent after giving up'),
  notify_url: str('Notified on reconciliation'),
  notify_api_version: str('Notification API version'),
  expires_date: dateTime('Latest date to pay'),
  attachment_urls: Type.Array(Type.String(), { description: 'URLs of attached files' }),
  bank: str('Bank chosen by the payer'),
  bank_id: str('Identifier of the bank chosen by the payer'),
  payer_name: str("Payer's name"),
  payer_email: str("Payer's email"),
  personal_identifier: str("Payer's personal identifier"),
  bank_account_number: str("Payer's bank account number"),
  out_of_date_conciliation: Type.Boolean({ description: 'Reconciled after expiry' }),
  transaction_id: str('Merchant-assigned identifier'),
  custom: str('Merchant-assigned generic field'),
  responsible_user_email: str('Email of the person responsible'),
  send_reminders: Type.Boolean({ description: 'Reminders are sent' }),
  send_email: Type.Boolean({ description: 'The payment was sent by email' }),
  payment_method: literals(['regular_transfer', 'simplified_transfer', 'not_available'], 'Method the payer used'),
  funds_source: literals(['debit', 'prepaid', 'credit', 'not-available', ''], 'Origin of the funds; empty for a bank transfer'),
  discount: double('Amount deducted from the paid value'),
  third_party_authorization_details: str('To be disregarded'),
};

export const PaymentV3 = Type.Object({
  ...paymentFields,
  conciliation_date: dateTime('Reconciliation date; the creation date until the payment is reconciled'),
  discount: Type.Optional(paymentFields.discount),
  third_party_authorization_details: Type.Optional(paymentFields.third_party_authorization_details),
});

/** v2 lists conciliation_date only once the payment is reconciled, and always discount and third_party_authorization_details. */
export const PaymentV2 = Type.Object({
  ...paymentFields,
  conciliation_date: Type.Optional(dateTime('Reconciliation date; absent until the payment is reconciled')),
});

export const BankList = Type.Object({
  banks: Type.Array(
    Type.Object({
      bank_id: str('Bank identifier'),
      name: str('Bank name'),
      message: str('Particulars of the bank'),
      min_amount: double('Minimum amount the bank accepts'),
      type: literals(['Persona', 'Empresa'], 'Personal or business banking'),
      parent: str('Identifier of the parent bank, or empty'),
      logo_url: Type.Optional(str('Logo URL')),
    }),
    { minItems: 1 },
  ),
});

export const PaymentMethodList = Type.Object({
  paymentMethods: Type.Array(Type.Object({ id: str('Method identifier'), name: str('Method name'), logo_url: str('Suggested logo') }), { minItems: 1 }),
});

export const Prediction = Type.Object({
  result: literals(PREDICTION_RESULTS, 'Prediction'),
  max_amount: double('Maximum possible transfer amount'),
  new_destinatary_max_amount: double('Maximum amount to a new recipient'),
  cool_down_date: str('End of the new-recipient restriction, ISO 8601'),
});

export const ReceiverCreated = Type.Object({
  receiver_id: str('Identifier of the new collection account'),
  secret: str('Secret key of the new collection account'),
});

export const PaymentIdParams = Type.Object({ id: Type.String({ maxLength: 255, description: 'Payment identifier' }) });
