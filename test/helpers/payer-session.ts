// A payer's browser reduced to HTTP: cookies kept between requests, forms posted as a browser
// posts them, redirects left for the test to see.
export interface PageResponse {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
}

export class PayerSession {
  readonly cookies = new Map<string, string>();

  /** `headers` go with every request (X-Forwarded-For, to be another client behind a trusted proxy). */
  constructor(
    readonly baseUrl: string,
    readonly headers: Record<string, string> = {},
  ) {}

  async #send(path: string, init: RequestInit): Promise<PageResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(path, this.baseUrl), {
      ...init,
      redirect: 'manual',
      headers: { ...this.headers, ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      this.cookies.set(name!.trim(), value.join('='));
    }
    return { status: res.status, headers: res.headers, html: await res.text(), location: res.headers.get('location') };
  }

  get(path: string): Promise<PageResponse> {
    return this.#send(path, { method: 'GET' });
  }

  /** Fields as a record, or as pairs to send one field twice. */
  post(path: string, fields: Record<string, string> | [string, string][]): Promise<PageResponse> {
    return this.#send(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  }
}

/** The CSRF token of the page's forms. */
export function csrfOf(page: PageResponse): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page.html);
  if (!match) throw new Error(`no form token on the page (status ${page.status})`);
  return match[1]!;
}

/** The text of the page's <h1>. */
export function titleOf(page: PageResponse): string {
  return /<h1>([^<]*)<\/h1>/.exec(page.html)?.[1] ?? '';
}

/** Starts an attempt at the bank on the simplified page; returns the bank's address. */
export async function startBankAttempt(session: PayerSession, paymentId: string, bankId: string): Promise<string> {
  const form = await session.get(`/payment/simplified/${paymentId}`);
  const started = await session.post(`/payment/simplified/${paymentId}`, { _csrf: csrfOf(form), bank_id: bankId, payer_email: 'payer@example.com' });
  if (started.status !== 303 || !started.location) throw new Error(`attempt not started: ${started.status} ${started.html}`);
  return started.location;
}

export const startDemoBankAttempt = (session: PayerSession, paymentId: string) => startBankAttempt(session, paymentId, 'Bawdf');

/** Logs in with DemoBank's credentials (a scripted bank that signs anyone in takes them too); returns the authorization page's address. */
export async function loginToDemoBank(session: PayerSession, bankPath: string, rut = '11.111.111-1'): Promise<string> {
  const login = await session.get(bankPath);
  const done = await session.post(`${bankPath}/login`, { _csrf: csrfOf(login), rut, password: '1234' });
  if (done.status !== 303 || !done.location) throw new Error(`login failed: ${done.status}`);
  return done.location;
}

/** A payer's tab at the coordinates page of a new attempt (at DemoBank unless said otherwise); `submit` sends the answers. */
export async function tabAtCoordinates(baseUrl: string, paymentId: string, bankId = 'Bawdf') {
  const session = new PayerSession(baseUrl);
  const path = await loginToDemoBank(session, await startBankAttempt(session, paymentId, bankId));
  const page = await session.get(path);
  return { session, path, page, submit: (answers: Record<string, string>) => session.post(path, { _csrf: csrfOf(page), ...answers }) };
}
