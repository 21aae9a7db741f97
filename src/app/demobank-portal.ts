// DemoBank's portal, the test bank's own pages for payers: a payer signs in with their RUT, sees the
// mandates they signed at DemoBank and revokes one, as they would at a real bank. The revocation
// reaches Quipu the way a real bank's would, as news (demobank-decisions.ts).
import type { PayerCredentials } from '../bank/connector.js';
import { type DemoMandate, demoMandates, findDemoMandate } from '../bank/demo-bank-mandates.js';
import { DEMO_BANK_ID } from '../domain/banks.js';
import { notFound } from '../domain/errors.js';
import type { AppContext } from './context.js';
import { loginFailure } from './bank-login.js';
import { decideDemoMandate } from './demobank-decisions.js';
import { signInAtInstitution } from './institution-sign-in.js';

const MANDATES_SHOWN = 100;

/** The payer's RUT as DemoBank writes it, once their credentials are right. */
export async function signInToDemoBankPortal(ctx: AppContext, credentials: PayerCredentials): Promise<string> {
  const login = await signInAtInstitution(ctx, ctx.banks.connectorFor(DEMO_BANK_ID)!, credentials);
  if (!login.ok) throw loginFailure(login.failure);
  return login.account.personalIdentifier;
}

export function payerMandates(ctx: AppContext, personalIdentifier: string): Promise<DemoMandate[]> {
  return demoMandates(ctx.db, { personalIdentifier, limit: MANDATES_SHOWN });
}

/** Another payer's mandate is not found, whatever the form that names it says. */
export async function revokePayerMandate(ctx: AppContext, personalIdentifier: string, mandateId: string): Promise<void> {
  const mandate = await findDemoMandate(ctx.db, mandateId);
  if (mandate?.personalIdentifier !== personalIdentifier) throw notFound('Mandate');
  await decideDemoMandate(ctx, mandateId, 'revoke');
}
