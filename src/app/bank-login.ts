// The payer logs in to their bank within an open attempt. Only the payer the merchant fixed
// (fixed_payer_personal_identifier) may go on; nothing changes on a failed login.
import { DomainError, fieldError, stateError } from '../domain/errors.js';
import { isAttemptOpen, payerAllowed, payerBlock } from '../domain/payment-attempt.js';
import type { PayerCredentials } from '../bank/connector.js';
import type { SignInFailure } from '../domain/oauth-institution.js';
import { changeAttempt } from './change-attempt.js';
import type { AppContext } from './context.js';
import { signInAtInstitution } from './institution-sign-in.js';
import { getPayerAttempt } from './payer-payment.js';

/** What a failed sign-in at a bank tells the payer's pages (payments and mandates alike). */
export function loginFailure(failure: SignInFailure): DomainError {
  if (failure === 'invalid-identifier') return fieldError('rut', 'is not a valid RUT');
  if (failure === 'wrong-credentials') return fieldError('password', 'the RUT or the password is wrong');
  return new DomainError('unavailable', 'The bank did not answer the sign-in');
}

export async function loginToBank(ctx: AppContext, attemptId: string, credentials: PayerCredentials): Promise<void> {
  const { attempt, payment } = await getPayerAttempt(ctx, attemptId);
  const now = ctx.clock.now();
  if (!isAttemptOpen(attempt, now)) throw stateError('This attempt has expired');
  const block = payerBlock(payment, now);
  if (block) throw stateError(`The payment cannot be paid: ${block}`);
  if (attempt.state !== 'started') throw stateError('The payer already logged in to the bank in this attempt');
  const connector = ctx.banks.connectorFor(attempt.bankId);
  if (!connector) throw new DomainError('forbidden', 'Quipu has no connection to this bank');
  const login = await signInAtInstitution(ctx, connector, credentials);
  if (!login.ok) throw loginFailure(login.failure);
  if (!payerAllowed(payment.fixedPayerPersonalIdentifier, login.account.personalIdentifier)) {
    throw new DomainError('forbidden', 'Only the payer the merchant named may pay this payment');
  }
  const moved = await changeAttempt(ctx, attempt, 'started', { event: 'signed-in', payer: login.account });
  if (!moved) throw stateError('The payer already logged in to the bank in this attempt');
}
