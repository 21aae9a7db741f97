// The user's sign-in at their bank (the institution), through the bank's connector: for the
// authorization flow and for the payer's login alike.
// A real connector talks to the bank over the network, so its answer is bounded by
// BANK_TIMEOUT_MS (a late answer is not waited for), and whatever stops it becomes a failure the
// flow names with the contract's codes (domain/oauth-institution.ts) and the payer pages as a bank
// that did not answer.
import { type BankConnector, BankRefusal, type PayerAccount, type PayerCredentials } from '../bank/connector.js';
import type { FlowError } from '../domain/oauth-errors.js';
import { type SignInFailure, signInFailureError, simulatedInstitutionFault } from '../domain/oauth-institution.js';
import { askBank, NO_ANSWER_IN_TIME } from './ask-bank.js';
import type { AppContext } from './context.js';

export type InstitutionSignIn = { ok: true; account: PayerAccount } | { ok: false; failure: SignInFailure };

export async function signInAtInstitution(ctx: AppContext, connector: BankConnector, credentials: PayerCredentials): Promise<InstitutionSignIn> {
  try {
    const login = await askBank(ctx, () => connector.login(credentials));
    if (login === NO_ANSWER_IN_TIME) {
      ctx.log.warn({ institution: connector.bankId, timeoutMs: ctx.config.bankTimeoutMs }, 'the institution did not answer a sign-in in time');
      return { ok: false, failure: 'no-answer' };
    }
    return login.ok ? login : { ok: false, failure: login.error };
  } catch (error) {
    ctx.log.warn({ err: error, institution: connector.bankId }, 'institution sign-in failed');
    return { ok: false, failure: error instanceof BankRefusal ? error.reason : 'failed' };
  }
}

export type FlowSignIn = { ok: true; userId: string } | { ok: false; error: FlowError };

/**
 * The sign-in step of the authorization flow and of the consent review: DemoBank's rehearsal
 * faults first, then the institution's connector, every failure named with the contract's codes.
 */
export async function signInForFlow(ctx: AppContext, institutionId: string, credentials: PayerCredentials): Promise<FlowSignIn> {
  const fault = simulatedInstitutionFault(institutionId, credentials.password);
  if (fault) return { ok: false, error: fault };
  const connector = ctx.banks.connectorFor(institutionId);
  if (!connector) return { ok: false, error: signInFailureError('no-connector') };
  const login = await signInAtInstitution(ctx, connector, credentials);
  return login.ok ? { ok: true, userId: login.account.personalIdentifier } : { ok: false, error: signInFailureError(login.failure) };
}
