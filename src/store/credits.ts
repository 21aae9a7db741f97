// Bank credit rows: every credit reported to a collection account, matched or not.
import type { Kysely } from 'kysely';
import type { BankCredit, CreditStatus, RecordedCredit } from '../domain/bank-credit.js';
import type { CreditQuery } from '../domain/credit-listing.js';
import type { BankCreditRow, BankCreditsTable, DB } from './schema.js';

function toCredit(row: BankCreditRow): RecordedCredit {
  return {
    creditId: row.credit_id,
    bankReference: row.bank_reference,
    account: row.account,
    amount: row.amount,
    currency: row.currency,
    reference: row.reference,
    creditedAt: new Date(row.credited_at),
    payerBankId: row.payer_bank_id,
    payerName: row.payer_name,
    payerEmail: row.payer_email,
    payerPersonalIdentifier: row.payer_personal_identifier,
    payerAccountNumber: row.payer_account_number,
    paymentMethod: row.payment_method as BankCredit['paymentMethod'],
    fundsSource: row.funds_source as BankCredit['fundsSource'],
    status: row.status as CreditStatus,
    reason: row.reason,
    paymentId: row.payment_id,
    receiverId: row.receiver_id,
    source: row.source,
    recordedAt: new Date(row.recorded_at),
  };
}

export function creditRow(credit: RecordedCredit): BankCreditsTable {
  return {
    credit_id: credit.creditId,
    account: credit.account,
    bank_reference: credit.bankReference,
    amount: credit.amount,
    currency: credit.currency,
    reference: credit.reference,
    credited_at: credit.creditedAt.getTime(),
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
    receiver_id: credit.receiverId,
    source: credit.source,
    recorded_at: credit.recordedAt.getTime(),
  };
}

/** Inserts a credit unless its movement (account, bank_reference) is already recorded; false means it was. */
export async function insertCreditOnce(db: Kysely<DB>, credit: RecordedCredit): Promise<boolean> {
  const result = await db
    .insertInto('bank_credits')
    .values(creditRow(credit))
    .onConflict((oc) => oc.columns(['account', 'bank_reference']).doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** Records how a credit was settled: the payment it paid, or why it matched none. */
export async function settleCredit(db: Kysely<DB>, creditId: string, outcome: Pick<BankCreditsTable, 'status' | 'reason' | 'payment_id' | 'receiver_id'>): Promise<void> {
  await db.updateTable('bank_credits').set(outcome).where('credit_id', '=', creditId).execute();
}

/** Newest recorded first, after `query.after` (the last credit of the previous page). */
export async function listCredits(db: Kysely<DB>, query: CreditQuery): Promise<RecordedCredit[]> {
  const { filter, after } = query;
  const rows = await db
    .selectFrom('bank_credits')
    .selectAll()
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(filter.account !== undefined, (q) => q.where('account', '=', filter.account!))
    .$if(filter.creditedFrom !== undefined, (q) => q.where('credited_at', '>=', filter.creditedFrom!.getTime()))
    .$if(filter.creditedTo !== undefined, (q) => q.where('credited_at', '<', filter.creditedTo!.getTime()))
    .$if(after !== undefined, (q) =>
      q.where((eb) => eb.or([eb('recorded_at', '<', after!.recordedAt), eb.and([eb('recorded_at', '=', after!.recordedAt), eb('credit_id', '<', after!.creditId)])])),
    )
    .orderBy('recorded_at', 'desc')
    .orderBy('credit_id', 'desc')
    .limit(query.limit)
    .execute();
  return rows.map(toCredit);
}
