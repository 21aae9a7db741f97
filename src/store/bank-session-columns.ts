// What a move of a payer's session at a bank writes, a payment attempt's or a mandate signing's:
// the two tables share these columns.

export interface BankSessionMove {
  state: string;
  at: Date;
  failure?: string | null;
  personalIdentifier?: string | null;
  accountNumber?: string | null;
  payerName?: string | null;
}

export function bankSessionColumns(move: BankSessionMove) {
  return {
    state: move.state,
    updated_at: move.at.getTime(),
    ...(move.failure !== undefined && { failure: move.failure }),
    ...(move.personalIdentifier !== undefined && {
      personal_identifier: move.personalIdentifier,
      account_number: move.accountNumber ?? null,
      payer_name: move.payerName ?? null,
    }),
  };
}
