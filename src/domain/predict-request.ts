// The predict query (GET /v3/predict): four strings the provider's schema bounds by length only. A
// prediction moves no money, so a value Quipu cannot act on is answered as the provider answers a
// payment it cannot make (`not_available_account`) or read as well as it can, and named as a doubt
// (docs/validation-rules.md). Only an amount that is no number at all is refused: there is nothing
// to compare with a limit.
import { type Bank, findBank } from './banks.js';
import { findCurrency, V3_CURRENCIES } from './currency.js';
import { type FieldError, FieldErrors } from './errors.js';
import { isEmail } from './formats.js';
import { decimalParts, parseAmount, SCALE } from './money.js';

export interface PredictQuery {
  payer_email: string;
  bank_id: string;
  amount: string;
  currency: string;
}

export interface PredictRequest {
  payerEmail: string;
  /** Undefined: not a bank this account can pay from. */
  bank: Bank | undefined;
  currency: string;
  /** In units, as compared with a bank's limits. */
  amount: number;
}

/**
 * The amount in units, as a payment would read it; else, when the text is still a number, read as
 * well as it can be and doubted: a negative one as 0, one past the range of amounts as more than any
 * limit, and decimals past the fourth rounded up, which keeps every comparison with a limit (whole
 * units) exact. Undefined when it is not a number.
 */
function comparableAmount(text: string, decimals: number, errors: FieldErrors): number | undefined {
  const exact = parseAmount(text, decimals);
  if (exact.ok) {
    if (exact.units === 0) errors.doubt('amount', 'must be greater than zero');
    return exact.units;
  }
  const parts = decimalParts(text);
  if (parts === undefined) {
    errors.add('amount', exact.reason);
    return undefined;
  }
  errors.doubt('amount', exact.reason);
  if (parts.negative) return 0;
  const truncated = parseAmount(`${parts.whole}.${parts.fraction.slice(0, SCALE) || '0'}`, SCALE);
  if (!truncated.ok) return Number.POSITIVE_INFINITY;
  return truncated.units + (parts.fraction.length > SCALE ? 1 : 0);
}

/** Reads the query; `doubts` receives what was answered or read with a doubt. */
export function parsePredictQuery(query: PredictQuery, developer: boolean, doubts: FieldError[] = []): PredictRequest {
  const errors = new FieldErrors([], doubts);
  if (!isEmail(query.payer_email)) errors.doubt('payer_email', 'must be an email address');
  const bank = findBank(query.bank_id, developer);
  if (!bank) errors.doubt('bank_id', 'is not a bank available to this account');
  const currency = findCurrency(query.currency);
  if (!currency) errors.doubt('currency', `must be one of ${V3_CURRENCIES.join(', ')}`);
  // An unknown currency's decimals are unknown: read up to the four any amount may have.
  const amount = comparableAmount(query.amount, currency?.decimals ?? SCALE, errors);
  errors.throwIfAny();
  return { payerEmail: query.payer_email, bank, currency: query.currency, amount: amount! };
}
