// The institution the user signs in at (institution_id is a bank id of the catalogue). The flow
// can only start where Quipu has a bank connector (today DemoBank, for developer-mode accounts on
// a sandbox installation: a production one, SANDBOX=false, offers no test bank to anyone);
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
 * Why the sign-in at the institution did not authenticate the user: the connector's answer about
 * the user's data, or what stopped the connector (no answer in time, a controlled error, a failed
 * operation, the institution unavailable), or no connector at all.
 */
export type SignInFailure = 'invalid-identifier' | 'wrong-credentials' | 'no-answer' | 'transient' | 'failed' | 'unavailable' | 'no-connector';

/**
 * The contract's code for each failure, by what the merchant should do next: E1xx the user's data
 * was wrong, E001/E003 start again at once, E002/E2xx not in the short term.
 */
const SIGN_IN_FAILURES: Readonly<Record<SignInFailure, FlowError>> = {
  'invalid-identifier': flowError('E101', 'The RUT given is not valid'),
  'wrong-credentials': flowError('E102', 'The institution refused the credentials'),
  'no-answer': flowError('E001', 'The institution did not answer the sign-in in time'),
  transient: flowError('E003', 'The institution reported a controlled error; try again'),
  failed: flowError('E002', 'The institution failed to process the sign-in'),
  unavailable: flowError('E201', 'The institution is unavailable'),
  'no-connector': flowError('E201', 'The institution cannot process the authentication'),
};

export function signInFailureError(failure: SignInFailure): FlowError {
  return SIGN_IN_FAILURES[failure];
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
