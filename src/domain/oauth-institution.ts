// The institution the user signs in at (institution_id is a bank id of the catalogue). The flow
// can only start where Quipu has a bank connector (today DemoBank, for developer-mode accounts);
// the login itself is the connector's, exactly as on the payer pages.
import { DEMO_BANK_ID, findBank } from './banks.js';
import { type FlowError, flowError } from './oauth-errors.js';

export type InstitutionAvailability = 'available' | 'unknown' | 'no-connector';

/** Whether a flow can start at this institution for this account. */
export function institutionAvailability(institutionId: string, developer: boolean, hasConnector: (bankId: string) => boolean): InstitutionAvailability {
  const bank = findBank(institutionId, developer);
  if (!bank) return 'unknown';
  return hasConnector(bank.bankId) ? 'available' : 'no-connector';
}

/**
 * Passwords that make DemoBank's sign-in fail with that flow error, so merchants can rehearse how
 * they handle each error of the contract (like the coordinates 99 99 99 on the payer pages).
 */
const DEMO_BANK_FAULTS: Readonly<Record<string, FlowError>> = {
  E001: flowError('E001', 'DemoBank did not answer in time'),
  E002: flowError('E002', 'DemoBank failed the operation'),
  E003: flowError('E003', 'DemoBank reported a controlled error; try again'),
  E201: flowError('E201', 'DemoBank is unavailable'),
  E999: flowError('E999', 'DemoBank reported a terminal error'),
};

export function simulatedInstitutionFault(institutionId: string, password: string): FlowError | undefined {
  return institutionId === DEMO_BANK_ID ? DEMO_BANK_FAULTS[password] : undefined;
}
