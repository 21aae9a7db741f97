// A credit to a collection account, as a bank statement or an operator reports it. One field
// table serves the operator API (JSON), statement files (CSV and JSON lines) and the test bank.
import { V3_CURRENCIES, findCurrency } from './currency.js';
import { FieldErrors, validationError } from './errors.js';
import { type FieldTable, type RawValue, dateValue, decodeFields, text } from './field-rules.js';
import { parseAmount } from './money.js';

/** not_available: a direct debit under a mandate (automatic payments), which is no transfer of the payer's. */
export const CREDIT_PAYMENT_METHODS = ['simplified_transfer', 'regular_transfer', 'not_available'] as const;
export const CREDIT_FUNDS_SOURCES = ['debit', 'prepaid', 'credit'] as const;

export const CREDIT_FIELDS: FieldTable = {
  // Never empty (decodeFields reads a required text's "" as a value): a second movement without a
  // reference would be dropped as a repeat of the first.
  bank_reference: {
    kind: 'string',
    required: true,
    minLength: 1,
    maxLength: 255,
    description: "The bank's unique identifier of the movement; importing it again is a no-op",
  },
  account: { kind: 'string', required: true, minLength: 1, maxLength: 255, description: 'Collection account credited (a collect_account_uuid)' },
  amount: { kind: 'amount', required: true, description: 'Amount credited' },
  currency: { kind: 'string', required: true, maxLength: 255, enum: V3_CURRENCIES, description: 'ISO 4217 code' },
  reference: { kind: 'string', maxLength: 255, description: 'What the payer wrote in the transfer: the payment_id' },
  credited_at: { kind: 'date-time', required: true, description: 'When the bank credited the account' },
  payer_bank_id: { kind: 'string', maxLength: 5, description: "The payer's bank" },
  payer_name: { kind: 'string', maxLength: 255, description: "The payer's name" },
  payer_email: { kind: 'email', maxLength: 255, description: "The payer's email" },
  payer_personal_identifier: { kind: 'string', maxLength: 255, description: "The payer's personal identifier (RUT)" },
  payer_account_number: { kind: 'string', maxLength: 255, description: "The payer's bank account number" },
  payment_method: {
    kind: 'string',
    maxLength: 255,
    enum: CREDIT_PAYMENT_METHODS,
    description: 'regular_transfer unless said otherwise; not_available for a direct debit',
  },
  funds_source: { kind: 'string', maxLength: 255, enum: CREDIT_FUNDS_SOURCES, description: 'Absent for a plain bank transfer' },
};

export interface BankCredit {
  bankReference: string;
  account: string;
  amount: number;
  currency: string;
  reference: string | null;
  creditedAt: Date;
  payerBankId: string | null;
  payerName: string | null;
  payerEmail: string | null;
  payerPersonalIdentifier: string | null;
  payerAccountNumber: string | null;
  paymentMethod: (typeof CREDIT_PAYMENT_METHODS)[number] | null;
  fundsSource: (typeof CREDIT_FUNDS_SOURCES)[number] | null;
}

function parseCredit(raw: Readonly<Record<string, RawValue>>, errors: FieldErrors): BankCredit | undefined {
  const f = decodeFields(CREDIT_FIELDS, raw, errors);
  const currency = text(f, 'currency');
  const amountText = text(f, 'amount');
  let amount = 0;
  if (currency !== undefined && amountText !== undefined) {
    const parsed = parseAmount(amountText, findCurrency(currency)!.decimals);
    if (!parsed.ok) errors.add('amount', parsed.reason);
    else if (parsed.units === 0) errors.add('amount', 'must be greater than zero');
    else amount = parsed.units;
  }
  if (errors.list.length > 0) return undefined;
  const optional = (name: string) => text(f, name) ?? null;
  return {
    bankReference: text(f, 'bank_reference')!,
    account: text(f, 'account')!,
    amount,
    currency: currency!,
    reference: optional('reference'),
    creditedAt: dateValue(f, 'credited_at')!,
    payerBankId: optional('payer_bank_id'),
    payerName: optional('payer_name'),
    payerEmail: optional('payer_email'),
    payerPersonalIdentifier: optional('payer_personal_identifier'),
    payerAccountNumber: optional('payer_account_number'),
    paymentMethod: optional('payment_method') as BankCredit['paymentMethod'],
    fundsSource: optional('funds_source') as BankCredit['fundsSource'],
  };
}

/**
 * Decodes a batch of credits; any bad record refuses the whole batch, naming each offending field
 * as `<label of the record>.<field>` (e.g. `credits.2.amount`, `line 3.amount`).
 */
export function parseCredits(records: readonly Readonly<Record<string, RawValue>>[], label: (index: number) => string): BankCredit[] {
  const all = new FieldErrors();
  const credits: BankCredit[] = [];
  records.forEach((raw, index) => {
    const errors = new FieldErrors();
    const credit = parseCredit(raw, errors);
    for (const e of errors.list) all.add(`${label(index)}.${e.field}`, e.message);
    if (credit) credits.push(credit);
  });
  if (all.list.length > 0) throw validationError(all.list, `Invalid credits: ${all.list.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  return credits;
}

export type CreditStatus = 'matched' | 'unmatched';

/** A credit as kept: every reported credit is, matched or not. */
export interface RecordedCredit extends BankCredit {
  creditId: string;
  status: CreditStatus;
  /** Why it did not match. */
  reason: string | null;
  paymentId: string | null;
  receiverId: number | null;
  /** 'operator', 'statement' or the bank_id of the connector that reported it. */
  source: string;
  recordedAt: Date;
}

/** A recorded credit's fields as the operator API names them, in its order; the store and the wire each encode the amount and instants their way. */
export function creditFields(credit: RecordedCredit) {
  return {
    credit_id: credit.creditId,
    bank_reference: credit.bankReference,
    account: credit.account,
    amount: credit.amount,
    currency: credit.currency,
    reference: credit.reference,
    credited_at: credit.creditedAt,
    payer_bank_id: credit.payerBankId,
    payer_name: credit.payerName,
    payer_email: credit.payerEmail,
    payer_personal_identifier: credit.payerPersonalIdentifier,
    payer_account_number: credit.payerAccountNumber,
    payment_method: credit.paymentMethod,
    funds_source: credit.fundsSource,
    status: credit.status,
    reason: credit.reason,
    payment_id: credit.paymentId,
    source: credit.source,
    recorded_at: credit.recordedAt,
  };
}
