// A recorded bank credit as the operator API and the CLI show it.
import type { RecordedCredit } from '../../domain/bank-credit.js';
import { formatDateTime } from '../../domain/dates.js';
import { amountToNumber } from '../../domain/money.js';

export function creditResource(credit: RecordedCredit) {
  return {
    credit_id: credit.creditId,
    bank_reference: credit.bankReference,
    account: credit.account,
    amount: amountToNumber(credit.amount),
    currency: credit.currency,
    reference: credit.reference,
    credited_at: formatDateTime(credit.creditedAt),
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
    recorded_at: formatDateTime(credit.recordedAt),
  };
}
