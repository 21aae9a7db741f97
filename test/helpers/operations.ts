// Operation descriptors in tests: issue one over the API, and run it on the operation pages as a
// payer would, reduced to HTTP (PayerSession).
import { DEMO_COORDINATES } from '../../src/bank/demo-bank-scenarios.js';
import { DEMO_BANK_ID } from '../../src/domain/banks.js';
import { call } from './http.js';
import { csrfOf, type PageResponse, PayerSession } from './payer-session.js';

export const DESCRIPTOR_PATH = '/v1/descriptor/payment';

export const NEW_DESCRIPTOR = {
  bank: DEMO_BANK_ID,
  params: {
    subject: 'Pedido 42',
    amount: 15000,
    currency_code: 'CLP',
    payer_email: 'payer@example.com',
    payer_name: 'Ana Pagadora',
    target_account_bank: 'Banco Estado',
    target_account_alias: 'Tienda',
    target_account_name: 'Tienda SpA',
    target_account_number: 123459876,
    target_account_personal_identifier: '12.345.678-5',
  },
};

export interface IssuedOperation {
  id: string;
  description: string;
}

export async function issueOperation(baseUrl: string, apiKey: string, body: unknown = NEW_DESCRIPTOR): Promise<IssuedOperation> {
  const res = await call(baseUrl, 'POST', DESCRIPTOR_PATH, { apiKey, body });
  if (res.status !== 200) throw new Error(`descriptor not issued: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.operation as IssuedOperation;
}

/** The address of an operation's page: its id, or the descriptor URL-encoded as the SDK takes it. */
export const operationPage = (ref: string) => `/operation/${encodeURIComponent(ref)}`;

const actionOf = (page: PageResponse) => /<form method="post" action="([^"]+)"/.exec(page.html)?.[1]?.replace(/&amp;/g, '&');

/** Signs in at DemoBank on the operation's page; returns the authorisation page's address. */
export async function signInToOperation(session: PayerSession, ref: string, rut = '11.111.111-1'): Promise<string> {
  const page = await session.get(operationPage(ref));
  const action = actionOf(page);
  if (!action) throw new Error(`no sign-in form: ${page.status} ${page.html}`);
  const done = await session.post(action, { _csrf: csrfOf(page), rut, password: '1234' });
  if (done.status !== 303 || !done.location) throw new Error(`sign-in failed: ${done.status}`);
  return done.location;
}

/** A payer's tab at the operation's coordinates; `submit` sends the answers. */
export async function operationAtCoordinates(baseUrl: string, ref: string) {
  const session = new PayerSession(baseUrl);
  const path = await signInToOperation(session, ref);
  const page = await session.get(path);
  const submit = (answers: readonly string[]) => session.post(path, { _csrf: csrfOf(page), c1: answers[0] ?? '', c2: answers[1] ?? '', c3: answers[2] ?? '' });
  return { session, path, page, submit };
}

/** Runs the operation at DemoBank through its pages; returns the page the payer lands on. */
export async function runThroughPages(baseUrl: string, ref: string, answers: readonly string[] = DEMO_COORDINATES.pay): Promise<PageResponse> {
  const tab = await operationAtCoordinates(baseUrl, ref);
  const done = await tab.submit(answers);
  if (done.status !== 303 || !done.location) throw new Error(`operation not run: ${done.status} ${done.html}`);
  return tab.session.get(done.location);
}
