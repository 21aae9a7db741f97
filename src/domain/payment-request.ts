// The payment-create request: its field table (shared by v3 JSON and v2 forms) and the rules
// that depend on the account, the bank catalogue and the clock.
import { findBank } from './banks.js';
import { findCurrency, V2_CURRENCIES, V3_CURRENCIES } from './currency.js';
import { type FieldError, FieldErrors } from './errors.js';
import { type FieldTable, type RawValue, dateValue, decodeFields, flagValue, text } from './field-rules.js';
import { type Merchant, NOTIFY_API_VERSIONS } from './merchant.js';
import { parseAmount } from './money.js';
import { type NotifyPolicy, notifyUrlProblem } from './network-address.js';
import { findPaymentMethod } from './payment-methods.js';

export type ApiSurface = 'v2' | 'v3';

const PSP_NAME_MIN = 3;

function paymentFields(currencies: readonly string[]): FieldTable {
  return {
    amount: { kind: 'amount', required: true, description: 'Charge amount; up to 4 decimals depending on the currency' },
    currency: { kind: 'string', required: true, maxLength: 255, enum: currencies, description: 'ISO 4217 code' },
    subject: { kind: 'string', required: true, maxLength: 255, description: 'Summary of the charge' },
    transaction_id: { kind: 'string', maxLength: 255, description: 'Merchant identifier, for example an invoice number' },
    custom: { kind: 'string', maxLength: 1073741824, description: 'Custom transaction information' },
    body: { kind: 'string', maxLength: 5120, description: 'Charge description' },
    bank_id: { kind: 'string', maxLength: 5, description: 'Bank to use' },
    return_url: { kind: 'redirect-url', maxLength: 1024, description: 'Where the payer is sent after paying' },
    cancel_url: { kind: 'redirect-url', maxLength: 1024, description: 'Where the payer is sent after giving up' },
    // Only stored and echoed (Quipu never fetches nor shows them): the provider takes any text.
    picture_url: { kind: 'web-url', maxLength: 1024, lenient: 'format', description: 'Product image' },
    notify_url: { kind: 'web-url', maxLength: 1024, description: 'Web service notified on reconciliation' },
    contract_url: { kind: 'web-url', maxLength: 1024, lenient: 'format', description: 'PDF contract signed through the payment' },
    notify_api_version: { kind: 'string', maxLength: 255, enum: NOTIFY_API_VERSIONS, description: 'Notification API version' },
    expires_date: { kind: 'date-time', description: 'Latest date to pay; each attempt lasts 3 hours' },
    send_email: { kind: 'boolean', description: 'Email a collection request to payer_email' },
    payer_name: { kind: 'string', maxLength: 255, description: "Payer's name; required when send_email is true" },
    payer_email: { kind: 'email', maxLength: 255, description: "Payer's email; required when send_email is true" },
    send_reminders: { kind: 'boolean', description: 'Send reminders of an emailed collection' },
    responsible_user_email: { kind: 'email', maxLength: 255, description: 'A user with collection permission on the account' },
    fixed_payer_personal_identifier: { kind: 'string', maxLength: 255, description: 'Only this personal identifier may pay' },
    integrator_fee: { kind: 'string', maxLength: 16, description: "Integrator's fee; only for accounts with an integrator" },
    collect_account_uuid: { kind: 'string', maxLength: 255, description: 'Destination account, for accounts with several' },
    confirm_timeout_date: { kind: 'date-time', description: 'Collection submission date; also the last date to refund' },
    mandatory_payment_method: { kind: 'string', maxLength: 255, description: 'The only method the payer may use' },
    psp_client_merchant_name: {
      kind: 'string',
      minLength: PSP_NAME_MIN,
      maxLength: 255,
      description: 'End merchant of a PSP; chained PSPs separated by ->, each name 3 to 255 characters',
    },
  };
}

export const PAYMENT_REQUEST_FIELDS: Record<ApiSurface, FieldTable> = {
  v3: paymentFields(V3_CURRENCIES),
  v2: paymentFields(V2_CURRENCIES),
};

export interface PaymentRequest {
  amount: number;
  currency: string;
  subject: string;
  transactionId?: string;
  custom?: string;
  body?: string;
  bankId?: string;
  returnUrl?: string;
  cancelUrl?: string;
  pictureUrl?: string;
  notifyUrl?: string;
  contractUrl?: string;
  notifyApiVersion?: string;
  expiresAt: Date;
  sendEmail: boolean;
  payerName?: string;
  payerEmail?: string;
  sendReminders: boolean;
  responsibleUserEmail?: string;
  fixedPayerPersonalIdentifier?: string;
  integratorFee?: number;
  collectAccountUuid: string;
  confirmTimeoutAt?: Date;
  /** Upper-case payment method id. */
  mandatoryPaymentMethod?: string;
  pspClientMerchantName?: string;
}

export interface PaymentRequestContext {
  merchant: Merchant;
  /** Where the account may send notifications (notifyPolicy). */
  notifyPolicy: NotifyPolicy;
  now: Date;
  defaultTtlHours: number;
}

/**
 * Decodes and checks a payment-create request, reporting every offending field at once. Values the
 * provider would take that are likely mistakes are accepted and added to `doubts`.
 */
export function parsePaymentRequest(
  surface: ApiSurface,
  raw: Readonly<Record<string, RawValue>>,
  ctx: PaymentRequestContext,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
): PaymentRequest {
  const errors = new FieldErrors(found, doubts);
  const f = decodeFields(PAYMENT_REQUEST_FIELDS[surface], raw, errors);
  const { merchant, now } = ctx;

  const currency = text(f, 'currency');
  const decimals = currency ? findCurrency(currency)?.decimals : undefined;
  let amount = 0;
  const amountText = text(f, 'amount');
  if (amountText !== undefined && decimals !== undefined) {
    const parsed = parseAmount(amountText, decimals);
    if (!parsed.ok) errors.add('amount', parsed.reason);
    else if (parsed.units === 0) errors.add('amount', 'must be greater than zero');
    else amount = parsed.units;
  }

  const bankId = text(f, 'bank_id');
  if (bankId !== undefined) {
    const bank = findBank(bankId, merchant.developer);
    if (!bank) errors.add('bank_id', 'is not a bank available to this account');
    else if (amount > 0 && bank.currency === currency && amount < bank.minAmount) {
      errors.add('amount', `is below the minimum amount of ${bank.name}`);
    }
  }

  const contractUrl = text(f, 'contract_url');
  if (contractUrl !== undefined) {
    if (!merchant.features.contractUrl) errors.add('contract_url', 'this account is not enabled for contracts');
    if (!f.has('fixed_payer_personal_identifier') && !errors.has('fixed_payer_personal_identifier')) {
      errors.add('fixed_payer_personal_identifier', 'is required when contract_url is given');
    }
  }

  const sendEmail = flagValue(f, 'send_email');
  if (sendEmail) {
    for (const field of ['payer_name', 'payer_email']) {
      if (!f.has(field) && !errors.has(field)) errors.add(field, 'is required when send_email is true');
    }
  }
  // Reminders follow the collection email: without one there is nothing to remind of.
  const remindersAsked = flagValue(f, 'send_reminders');
  if (remindersAsked && !sendEmail) errors.doubt('send_reminders', 'is ignored without send_email');
  const sendReminders = remindersAsked && sendEmail;

  const responsible = text(f, 'responsible_user_email');
  if (responsible !== undefined && !merchant.users.some((u) => u.toLowerCase() === responsible.toLowerCase())) {
    errors.add('responsible_user_email', 'is not a user with collection permission on this account');
  }

  let integratorFee: number | undefined;
  const feeText = text(f, 'integrator_fee');
  if (feeText !== undefined) {
    if (merchant.parentReceiverId === null) errors.add('integrator_fee', 'is only valid for accounts with an integrator');
    else if (decimals !== undefined) {
      const fee = parseAmount(feeText, decimals);
      if (!fee.ok) errors.add('integrator_fee', fee.reason);
      else if (amount > 0 && fee.units > amount) errors.add('integrator_fee', 'must not exceed the amount');
      else integratorFee = fee.units;
    }
  }

  // Accounts that may only notify the public internet may not aim notifications at this machine or
  // its network (the worker checks the resolved address too; a literal address is refused here,
  // where the merchant sees why).
  const notifyUrl = text(f, 'notify_url');
  const notifyHostProblem = notifyUrl !== undefined ? notifyUrlProblem(notifyUrl, ctx.notifyPolicy) : undefined;
  if (notifyHostProblem) errors.add('notify_url', notifyHostProblem);

  const collectAccount = text(f, 'collect_account_uuid');
  if (collectAccount !== undefined && !merchant.collectAccounts.includes(collectAccount)) {
    errors.add('collect_account_uuid', 'is not a collection account of this merchant');
  }

  // Taken as the provider takes it: a payment born expired cannot be paid (payerBlock), so nothing moves.
  const expiresAt = dateValue(f, 'expires_date');
  if (expiresAt && expiresAt <= now) errors.doubt('expires_date', 'is in the past');
  const confirmTimeoutAt = dateValue(f, 'confirm_timeout_date');
  if (confirmTimeoutAt && confirmTimeoutAt <= now) errors.add('confirm_timeout_date', 'must be in the future');

  let mandatoryMethod: string | undefined;
  const methodId = text(f, 'mandatory_payment_method');
  if (methodId !== undefined) {
    const method = findPaymentMethod(methodId);
    if (!method || !merchant.paymentMethods.includes(method.id)) {
      errors.add('mandatory_payment_method', `must be one of the account's payment methods: ${merchant.paymentMethods.join(', ')}`);
    } else mandatoryMethod = method.id;
  }

  const psp = pspClientMerchantName(text(f, 'psp_client_merchant_name'), merchant.features.psp, errors);

  errors.throwIfAny();
  return {
    amount,
    currency: currency!,
    subject: text(f, 'subject')!,
    transactionId: text(f, 'transaction_id'),
    custom: text(f, 'custom'),
    body: text(f, 'body'),
    bankId,
    returnUrl: text(f, 'return_url'),
    cancelUrl: text(f, 'cancel_url'),
    pictureUrl: text(f, 'picture_url'),
    notifyUrl,
    contractUrl,
    notifyApiVersion: text(f, 'notify_api_version'),
    expiresAt: expiresAt ?? new Date(now.getTime() + ctx.defaultTtlHours * 3_600_000),
    sendEmail,
    payerName: text(f, 'payer_name'),
    payerEmail: text(f, 'payer_email'),
    sendReminders,
    responsibleUserEmail: responsible,
    fixedPayerPersonalIdentifier: text(f, 'fixed_payer_personal_identifier'),
    integratorFee,
    collectAccountUuid: collectAccount ?? merchant.collectAccounts[0]!,
    confirmTimeoutAt,
    mandatoryPaymentMethod: mandatoryMethod,
    pspClientMerchantName: psp,
  };
}

/**
 * The end merchant a PSP collects for: required of PSP accounts; of any other account it does not
 * apply (the contract), so it is ignored, not stored.
 */
function pspClientMerchantName(name: string | undefined, psp: boolean, errors: FieldErrors): string | undefined {
  const field = 'psp_client_merchant_name';
  if (!psp) {
    if (name !== undefined) errors.doubt(field, 'is ignored: the account is not a payment-service-provider');
    return undefined;
  }
  if (name === undefined) {
    if (!errors.has(field)) errors.add(field, 'is required for payment-service-provider accounts');
  } else if (name.split('->').some((one) => one.trim().length < PSP_NAME_MIN)) {
    // The schema's 3 characters are for the whole value; a shorter merchant in a chain is likely a slip.
    errors.doubt(field, `has a name under ${PSP_NAME_MIN} characters between its -> separators`);
  }
  return name;
}
