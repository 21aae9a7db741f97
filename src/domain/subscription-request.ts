// The automatic payment API's two requests: a subscription and a charge intent. Each is a field
// table (the JSON schema and the OpenAPI document are generated from it) and the rules that need
// the account, the clock or the subscription, checked in the same pass so a 400 names every field.
import { findCurrency, V3_CURRENCIES } from './currency.js';
import { type FieldError, FieldErrors, validationError } from './errors.js';
import { type FieldTable, type RawValue, decodeFields, text } from './field-rules.js';
import { NOTIFY_API_VERSIONS } from './merchant.js';
import { parseAmount, SCALE } from './money.js';
import { type NotifyPolicy, notifyUrlProblem } from './network-address.js';
import { chargeRefusal } from './mandate-status.js';
import type { Subscription } from './subscription.js';

const URL_LENGTH = 1024;

export const SUBSCRIPTION_REQUEST_FIELDS: FieldTable = {
  name: { kind: 'string', required: true, maxLength: 255, description: 'Name identifying the subscription' },
  email: { kind: 'email', required: true, maxLength: 255, description: "The payer's email" },
  max_amount: { kind: 'amount', required: true, description: 'The most a single charge may be, in the currency; up to its decimals' },
  currency: { kind: 'string', required: true, maxLength: 4, enum: V3_CURRENCIES, description: 'ISO 4217 code of every charge' },
  notify_url: {
    kind: 'web-url',
    required: true,
    maxLength: URL_LENGTH,
    description: 'POSTed {subscription_id, status} when signing finishes (enabled or disabled) and when the payer revokes',
  },
  return_url: { kind: 'redirect-url', required: true, maxLength: URL_LENGTH, description: 'Where the payer goes once the mandate is signed' },
  cancel_url: { kind: 'redirect-url', required: true, maxLength: URL_LENGTH, description: 'Where the payer goes when signing could not complete' },
  service_reference: { kind: 'string', maxLength: 255, description: "Shown in the bank's mandate form instead of the subscription id" },
  image_url: { kind: 'web-url', maxLength: URL_LENGTH, description: 'Image shown on the signing page' },
  // Quipu's own bound (the provider gives none), kept only as a doubt; image_url stays strict: it is
  // shown in an <img> of the signing page and names a source of its Content-Security-Policy.
  description: { kind: 'string', maxLength: 1024, lenient: true, description: 'Description of the mandate shown at the bank' },
};

export const CHARGE_INTENT_FIELDS: FieldTable = {
  subscription_id: { kind: 'string', required: true, maxLength: 255, description: 'The ENABLED subscription to charge' },
  amount: { kind: 'amount', required: true, description: "Amount in the subscription's currency: at least 1, up to its decimals, at most its max_amount" },
  subject: { kind: 'string', required: true, maxLength: 255, description: 'Identifies the charge' },
  body: { kind: 'string', required: true, maxLength: 5120, description: 'Charge description' },
  error_response_url: {
    kind: 'web-url',
    required: true,
    maxLength: URL_LENGTH,
    description: 'POSTed {subscription_id, transaction_id, error_message} if the debit fails',
  },
  custom: { kind: 'string', required: true, maxLength: 1073741824, description: 'Custom information, plain text or a base64 document' },
  transaction_id: { kind: 'string', required: true, maxLength: 255, description: "Merchant's identifier of the charge, for example an invoice number" },
  notify_url: { kind: 'web-url', required: true, maxLength: URL_LENGTH, description: 'Notified as for a payment once the charge is reconciled' },
  notify_api_version: { kind: 'string', maxLength: 255, enum: NOTIFY_API_VERSIONS, description: 'Notification API version of that notification' },
};

export type SubscriptionRequest = Pick<Subscription, 'name' | 'email' | 'maxAmount' | 'currency' | 'notifyUrl' | 'returnUrl' | 'cancelUrl'> & {
  serviceReference?: string;
  imageUrl?: string;
  description?: string;
};

/** One unit of the currency, in units of 1/10000: the least a charge may be. */
const ONE = 10 ** SCALE;

/**
 * An amount in `currency`; without a known currency (a bad one, an unknown subscription) it is
 * still checked against the contract's four decimals, so the 400 names it too.
 */
export function amountOf(errors: FieldErrors, field: string, value: string | undefined, currency: string | undefined, minimum: number): number {
  if (value === undefined) return 0;
  const decimals = (currency ? findCurrency(currency)?.decimals : undefined) ?? SCALE;
  const parsed = parseAmount(value, decimals);
  if (!parsed.ok) errors.add(field, parsed.reason);
  else if (parsed.units < minimum) errors.add(field, minimum === ONE ? 'must be at least 1' : 'must be greater than zero');
  else return parsed.units;
  return 0;
}

function checkNotifyUrls(errors: FieldErrors, fields: Map<string, unknown>, names: readonly string[], policy: NotifyPolicy): void {
  for (const name of names) {
    const url = fields.get(name);
    const problem = typeof url === 'string' ? notifyUrlProblem(url, policy) : undefined;
    if (problem) errors.add(name, problem);
  }
}

/**
 * `notifyPolicy`: where the account may aim callbacks (notifyPolicy).
 * Values accepted that are likely mistakes are added to `doubts`.
 */
export function parseSubscriptionRequest(
  raw: Readonly<Record<string, RawValue>>,
  notifyPolicy: NotifyPolicy,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
): SubscriptionRequest {
  const errors = new FieldErrors(found, doubts);
  const f = decodeFields(SUBSCRIPTION_REQUEST_FIELDS, raw, errors);
  const currency = text(f, 'currency');
  const maxAmount = amountOf(errors, 'max_amount', text(f, 'max_amount'), currency, 1);
  checkNotifyUrls(errors, f, ['notify_url'], notifyPolicy);
  errors.throwIfAny();
  return {
    name: text(f, 'name')!,
    email: text(f, 'email')!,
    maxAmount,
    currency: currency!,
    notifyUrl: text(f, 'notify_url')!,
    returnUrl: text(f, 'return_url')!,
    cancelUrl: text(f, 'cancel_url')!,
    serviceReference: text(f, 'service_reference'),
    imageUrl: text(f, 'image_url'),
    description: text(f, 'description'),
  };
}

export interface ChargeRequest {
  subscriptionId: string;
  amount: number;
  subject: string;
  body: string;
  errorResponseUrl: string;
  custom: string;
  transactionId: string;
  notifyUrl: string;
  notifyApiVersion?: string;
}

/**
 * Decodes a charge intent against its subscription (`undefined`: none of this account has that
 * id, reported on `subscription_id` with the other fields' problems): its mandate's state, currency
 * and max_amount, all a charge is held to.
 */
export function parseChargeRequest(
  raw: Readonly<Record<string, RawValue>>,
  subscription: Pick<Subscription, 'state' | 'currency' | 'maxAmount'> | undefined,
  notifyPolicy: NotifyPolicy,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
): ChargeRequest {
  const errors = new FieldErrors(found, doubts);
  const f = decodeFields(CHARGE_INTENT_FIELDS, raw, errors);
  const refusal = f.has('subscription_id') ? (subscription ? chargeRefusal(subscription.state) : 'is not a subscription of this account') : undefined;
  if (refusal) errors.add('subscription_id', refusal);
  const amount = amountOf(errors, 'amount', text(f, 'amount'), subscription?.currency, ONE);
  if (subscription && amount > subscription.maxAmount) errors.add('amount', "must not exceed the subscription's max_amount");
  checkNotifyUrls(errors, f, ['notify_url', 'error_response_url'], notifyPolicy);
  // The message says why the subscription cannot be charged, which is what a merchant must act on.
  if (errors.list.length > 0) throw validationError(errors.list, refusal ? `subscription_id: ${refusal}` : undefined);
  return {
    subscriptionId: text(f, 'subscription_id')!,
    amount,
    subject: text(f, 'subject')!,
    body: text(f, 'body')!,
    errorResponseUrl: text(f, 'error_response_url')!,
    custom: text(f, 'custom')!,
    transactionId: text(f, 'transaction_id')!,
    notifyUrl: text(f, 'notify_url')!,
    notifyApiVersion: text(f, 'notify_api_version'),
  };
}
