// A payer signing a subscription's mandate on the signing pages, reduced to HTTP (PayerSession):
// the redirect_url's page, DemoBank chosen, the bank's sign-in, then the coordinates.
import { DEMO_COORDINATES } from '../../src/bank/demo-bank-scenarios.js';
import { DEMO_BANK_ID } from '../../src/domain/banks.js';
import { csrfOf, loginToDemoBank, PayerSession } from './payer-session.js';

export interface MandateSigningOptions {
  /** The payer's RUT at DemoBank (the scenario table's RUTs give other outcomes). */
  rut?: string;
  answers?: readonly string[];
}

/** Chooses DemoBank on the subscription's page; returns the signing session's address. */
export async function startDemoBankSigning(session: PayerSession, redirectUrl: string): Promise<string> {
  const path = new URL(redirectUrl).pathname;
  const page = await session.get(path);
  const started = await session.post(path, { _csrf: csrfOf(page), bank_id: DEMO_BANK_ID });
  if (started.status !== 303 || !started.location) throw new Error(`signing not started: ${started.status} ${started.html}`);
  return started.location;
}

/** A payer's tab at the coordinates of a new signing session, signed in with `rut`; `submit` sends the answers. */
export async function mandateTabAtCoordinates(baseUrl: string, redirectUrl: string, rut = '11.111.111-1') {
  const session = new PayerSession(baseUrl);
  const path = await loginToDemoBank(session, await startDemoBankSigning(session, redirectUrl), rut);
  const page = await session.get(path);
  const submit = (answers: readonly string[]) => session.post(path, { _csrf: csrfOf(page), c1: answers[0] ?? '', c2: answers[1] ?? '', c3: answers[2] ?? '' });
  return { session, path, page, submit };
}

/** Signs the mandate through the pages; returns where the payer lands (return_url or cancel_url). */
export async function signMandateThroughPages(
  baseUrl: string,
  redirectUrl: string,
  { rut, answers = DEMO_COORDINATES.pay }: MandateSigningOptions = {},
): Promise<string> {
  const tab = await mandateTabAtCoordinates(baseUrl, redirectUrl, rut);
  const done = await tab.submit(answers);
  if (done.status !== 303 || !done.location) throw new Error(`mandate not signed: ${done.status} ${done.html}`);
  return done.location;
}
