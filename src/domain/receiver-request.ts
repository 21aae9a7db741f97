// The receiver-create request: a child collection account opened by an integrator.
import { type FieldError, FieldErrors } from './errors.js';
import { type FieldTable, type RawValue, decodeFields, text } from './field-rules.js';
import { findBank } from './banks.js';
import { isCountryCode } from './formats.js';
import { type NotifyPolicy, notifyUrlProblem } from './network-address.js';

const str = (maxLength: number, minLength?: number, required = true) => ({ kind: 'string' as const, maxLength, minLength, required });
const email = { kind: 'email' as const, maxLength: 255, required: true };

export const RECEIVER_REQUEST_FIELDS: FieldTable = {
  admin_first_name: str(255),
  admin_last_name: str(255),
  admin_email: email,
  country_code: { ...str(2), description: 'ISO 3166-1 alpha-2 country code' },
  business_identifier: { ...str(255, 8), description: 'Tax identifier' },
  business_category: str(255),
  business_name: { ...str(255), description: 'Tax name' },
  business_phone: str(20, 5),
  business_address_line_1: str(300, 4),
  business_address_line_2: str(300, 4),
  business_address_line_3: str(300, 4),
  contact_full_name: str(255),
  contact_job_title: str(255),
  contact_email: email,
  contact_phone: str(20, 5),
  bank_account_bank_id: str(5, undefined, false),
  bank_account_type: { ...str(255, undefined, false), description: 'Required in the alternative trusted-integrator model' },
  bank_account_identifier: { ...str(50, undefined, false), description: "Personal identifier of the account's owner" },
  bank_account_name: str(255, undefined, false),
  bank_account_number: str(255, undefined, false),
  notify_url: { kind: 'web-url', maxLength: 1024, description: 'Default payment notification URL' },
  rendition_url: { kind: 'web-url', maxLength: 1024, description: 'URL notified about accountability' },
};

export interface ReceiverRequest {
  countryCode: string;
  adminEmail: string;
  businessName: string;
  notifyUrl?: string;
  renditionUrl?: string;
  /** Every field as sent, kept as the account's profile. */
  profile: Record<string, string>;
}

/**
 * `developer`: the integrator's mode (its banks), which the new account takes; `notifyPolicy`: the
 * integrator's notifyPolicy, so the new account's URLs are on hosts the integrator registered.
 * Values accepted that are likely mistakes are added to `doubts`.
 */
export function parseReceiverRequest(
  raw: Readonly<Record<string, RawValue>>,
  developer: boolean,
  notifyPolicy: NotifyPolicy,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
): ReceiverRequest {
  const errors = new FieldErrors(found, doubts);
  const f = decodeFields(RECEIVER_REQUEST_FIELDS, raw, errors);
  const country = text(f, 'country_code');
  if (country !== undefined && !isCountryCode(country)) errors.add('country_code', 'must be an ISO 3166-1 two-letter country code');
  // The account's default notify_url and its rendition_url follow the rule of a payment's notify_url.
  for (const field of ['notify_url', 'rendition_url']) {
    const url = text(f, field);
    const hostProblem = url !== undefined ? notifyUrlProblem(url, notifyPolicy) : undefined;
    if (hostProblem) errors.add(field, hostProblem);
  }
  // The bank account is only kept in the profile, which nothing reads back: Quipu never pays into it.
  // An unknown bank or an account given in part is taken, as the provider takes it, and named.
  const bankId = text(f, 'bank_account_bank_id');
  if (bankId !== undefined && !findBank(bankId, developer)) errors.doubt('bank_account_bank_id', 'is not a known bank');
  const account = ['bank_account_bank_id', 'bank_account_number', 'bank_account_identifier'];
  if (account.some((field) => f.has(field))) {
    for (const field of account) if (!f.has(field) && !errors.has(field)) errors.doubt(field, 'is missing from a bank account given in part');
  }
  errors.throwIfAny();
  const profile: Record<string, string> = {};
  for (const [key, value] of f) profile[key] = String(value);
  return {
    countryCode: country!,
    adminEmail: text(f, 'admin_email')!,
    businessName: text(f, 'business_name')!,
    notifyUrl: text(f, 'notify_url'),
    renditionUrl: text(f, 'rendition_url'),
    profile,
  };
}
