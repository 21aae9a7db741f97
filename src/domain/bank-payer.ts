// The payer as their bank signs them in: what a payer's attempt, a mandate-signing session and an
// operation record of them (the bank connector's PayerAccount has this shape).

export interface BankPayer {
  personalIdentifier: string;
  accountNumber: string;
  holderName: string;
}

/** The payer's fields of a payment attempt or a mandate-signing session. */
export function payerOfSession(payer: BankPayer): { personalIdentifier: string; accountNumber: string; payerName: string } {
  return { personalIdentifier: payer.personalIdentifier, accountNumber: payer.accountNumber, payerName: payer.holderName };
}
