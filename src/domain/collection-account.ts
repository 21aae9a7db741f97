// The bank account payers transfer to: the installation's collection account (the COLLECTION_*
// settings). The normal transfer page shows it so a payer can make the transfer from any bank, a
// bank connector is ordered to credit it, and the credits a bank reports for it are matched to
// payments by the reference the payer wrote.
import { DEMO_BANK_ID } from './banks.js';

export const ACCOUNT_TYPES = ['cuenta_corriente', 'cuenta_vista', 'cuenta_ahorro'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export interface CollectionAccount {
  /** The bank holding the account, a bank_id of the catalogue. */
  bankId: string;
  accountType: AccountType;
  number: string;
  holderName: string;
  /** The holder's RUT, written as banks ask for it: "76.543.210-3". */
  holderRut: string;
}

/** DemoBank's collection account: the defaults, right for a developer-mode installation, whose money is not real. */
export const DEMO_COLLECTION_ACCOUNT: CollectionAccount = {
  bankId: DEMO_BANK_ID,
  accountType: 'cuenta_corriente',
  number: '000000000000076543210',
  holderName: 'Quipu Recaudación DemoBank',
  holderRut: '76.543.210-3',
};

/** Whether `account` is DemoBank's: money sent to it reaches nobody, so it is no real installation's account. */
export function isDemoCollectionAccount(account: CollectionAccount): boolean {
  return account.bankId === DEMO_BANK_ID;
}

/** The account a payer of this account is told to transfer to: a production account is never sent to DemoBank's (none then). */
export function payerCollectionAccount(account: CollectionAccount, developer: boolean): CollectionAccount | undefined {
  return developer || !isDemoCollectionAccount(account) ? account : undefined;
}
