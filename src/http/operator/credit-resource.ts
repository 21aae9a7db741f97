// A recorded bank credit as the operator API and the CLI show it.
import { creditFields, type RecordedCredit } from '../../domain/bank-credit.js';
import { formatDateTime } from '../../domain/dates.js';
import { amountToNumber } from '../../domain/money.js';

export function creditResource(credit: RecordedCredit) {
  const fields = creditFields(credit);
  return { ...fields, amount: amountToNumber(fields.amount), credited_at: formatDateTime(fields.credited_at), recorded_at: formatDateTime(fields.recorded_at) };
}
