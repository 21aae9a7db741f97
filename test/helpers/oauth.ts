// Driving the authorization server over plain HTTP, as a browser without scripts and a client
// backend would: a cookie jar, manual redirects, the pages' forms and the token endpoint.
import { updateMerchant } from '../../src/app/update-merchant.js';
import type { JsonResponse } from './http.js';
import type { TestAccount, TestServer } from './server.js';

export const FORM = 'application/x-www-form-urlencoded';

export function basicAuth(account: { receiver_id: number; secret: string }): string {
  return `Basic ${Buffer.from(`${account.receiver_id}:${account.secret}`).toString('base64')}`;
}

/** POST to the token (or revocation) endpoint with the client's Basic credentials unless `auth` says otherwise. */
export async function formPost(baseUrl: string, path: string, form: Record<string, string>, auth?: string | null): Promise<JsonResponse> {
  const headers: Record<string, string> = { 'content-type': FORM };
  if (auth) headers.authorization = auth;
  const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body };
}

export async function clientCredentialsToken(server: TestServer, account: TestAccount): Promise<string> {
  const res = await formPost(server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials' }, basicAuth(account));
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}

export async function registerRedirectUris(server: TestServer, account: TestAccount, uris: string[]): Promise<void> {
  await updateMerchant(server.ctx, account.receiver_id, { redirectUris: uris });
}

export function authorizeParams(account: TestAccount, redirectUri: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    client_id: String(account.receiver_id),
    redirect_uri: redirectUri,
    response_type: 'code',
    response_mode: 'query',
    scope: 'openid api',
    institution_id: 'Bawdf',
    state: 'st-123',
    ...extra,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

interface Cookie {
  name: string;
  value: string;
  path: string;
}

/** RFC 6265 5.1.4: a cookie's path covers itself and what lies below it. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  return requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/');
}

/** A browser without scripts: keeps cookies (by name and path, as browsers do), follows nothing by itself. */
export class PageClient {
  readonly #cookies = new Map<string, Cookie>();

  constructor(private readonly baseUrl: string) {}

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<PageResponse> {
    const url = new URL(path, this.baseUrl);
    const headers: Record<string, string> = {};
    const sent = [...this.#cookies.values()].filter((c) => pathMatches(url.pathname, c.path));
    if (sent.length > 0) headers.cookie = sent.map((c) => `${c.name}=${c.value}`).join('; ');
    if (form) headers['content-type'] = FORM;
    const res = await fetch(url, { method, headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual' });
    for (const set of res.headers.getSetCookie()) {
      const [pair, ...attributes] = set.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const cookiePath = attributes.map((a) => /^\s*path=(.*)$/i.exec(a)?.[1]?.trim()).find((p) => p !== undefined) ?? '/';
      this.#cookies.set(`${cookiePath} ${name}`, { name, value: pair!.slice(eq + 1).trim(), path: cookiePath });
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  get(path: string): Promise<PageResponse> {
    return this.request('GET', path);
  }

  post(path: string, form: Record<string, string>): Promise<PageResponse> {
    return this.request('POST', path, form);
  }

  /** GET /oauth2/authorize; on success, the path of the flow's page. */
  async authorize(params: Record<string, string>): Promise<PageResponse> {
    return this.get(`/oauth2/authorize?${new URLSearchParams(params)}`);
  }

  /** The flow's sign-in page, then its form posted: answers the POST. */
  async signIn(flowPath: string, rut: string, password: string): Promise<PageResponse> {
    const page = await this.get(flowPath);
    if (page.status !== 200) throw new Error(`sign-in page: ${page.status} ${page.text}`);
    return this.post(`${flowPath}/login`, { _csrf: csrfOf(page.text), rut, password });
  }

  async decide(flowPath: string, decision: 'allow' | 'deny'): Promise<PageResponse> {
    const page = await this.get(flowPath);
    if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.text}`);
    return this.post(`${flowPath}/consent`, { _csrf: csrfOf(page.text), decision });
  }

  /** Authorize, sign in at DemoBank and answer the consent: the final response (redirect to the client, or the form_post page). */
  async runFlow(params: Record<string, string>, options: { rut?: string; password?: string; decision?: 'allow' | 'deny' } = {}): Promise<PageResponse> {
    const start = await this.authorize(params);
    if (start.status !== 303 || !start.location?.startsWith('/oauth2/flows/')) return start;
    const login = await this.signIn(start.location, options.rut ?? '11.111.111-1', options.password ?? '1234');
    if (login.location !== start.location) return login;
    return this.decide(start.location, options.decision ?? 'allow');
  }
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no CSRF token in page:\n${html}`);
  return match[1]!;
}

/** The query parameters of a redirect to the client. */
export function redirectParams(location: string | null): Record<string, string> {
  if (!location) throw new Error('no redirect');
  return Object.fromEntries(new URL(location).searchParams);
}

/** The hidden fields of the form_post page. */
export function formPostFields(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form in page:\n${html}`);
  const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
  return { action: action.replace(/&amp;/g, '&'), fields };
}

export function decodeJwtPart(token: string, part: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[part]!, 'base64url').toString('utf8'));
}
