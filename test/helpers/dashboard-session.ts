// A dashboard user's browser without a browser: signed in with the sign-in form, and forms posted
// as the page the user has open would post them, with its CSRF token.
import type { DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import { csrfOf, type PageResponse, PayerSession } from './payer-session.js';

const SIGN_IN = '/dashboard/sign-in';

export async function dashboardSession(baseUrl: string, credentials: Pick<DashboardCredentials, 'email' | 'password'>): Promise<PayerSession> {
  const session = new PayerSession(baseUrl);
  const answer = await session.post(SIGN_IN, { _csrf: csrfOf(await session.get(SIGN_IN)), email: credentials.email, password: credentials.password });
  if (answer.status !== 303) throw new Error(`sign-in of ${credentials.email} answered ${answer.status}`);
  return session;
}

/** Posts a form as the page the user has open would, with its CSRF token. */
export async function postForm(session: PayerSession, page: string, action: string, fields: Record<string, string> = {}): Promise<PageResponse> {
  return session.post(action, { _csrf: csrfOf(await session.get(page)), ...fields });
}
