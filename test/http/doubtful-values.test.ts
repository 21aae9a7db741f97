// Never stricter than the provider (docs/validation-rules.md): a value that breaks only a rule of
// Quipu's own, where the provider would take it, is accepted and stored as sent; a developer-mode
// account hears of it in Quipu-Warnings (`field=message`, percent-encoded) and in the request's log
// line, a production account gets the same answer without the header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, type JsonResponse } from '../helpers/http.js';
import { DESCRIPTOR_PATH, NEW_DESCRIPTOR } from '../helpers/operations.js';
import { logLines, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const HEADER = 'quipu-warnings';

let server: TestServer;
let developer: TestAccount;
let production: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  developer = await server.account();
  production = await server.account({ developer: false });
});
afterAll(async () => server?.close());

const withParams = (params: Record<string, unknown>) => ({ ...NEW_DESCRIPTOR, params: { ...NEW_DESCRIPTOR.params, ...params } });

/** The header's entries, decoded: field → message. */
function warningsOf(res: JsonResponse): Record<string, string> {
  const header = res.headers.get(HEADER);
  if (header === null) return {};
  return Object.fromEntries(header.split(', ').map((entry) => entry.split('=').map(decodeURIComponent) as [string, string]));
}

interface Doubtful {
  what: string;
  path: string;
  body: unknown;
  /** What the accepted resource must hold, read back from `read` of the answer. */
  read: (answer: JsonResponse) => string;
  stored: Record<string, unknown>;
  warnings: Record<string, string>;
}

const operationParams = (answer: JsonResponse) => `/sandbox/descriptors/${answer.body.operation.id}`;

const DOUBTFUL: Doubtful[] = [
  {
    what: "the provider's own descriptor example: a RUT whose check digit does not match",
    path: DESCRIPTOR_PATH,
    body: withParams({ target_account_personal_identifier: '12.345.678-9' }),
    read: operationParams,
    stored: { params: expect.objectContaining({ target_account_personal_identifier: '12.345.678-9' }) },
    warnings: { 'params.target_account_personal_identifier': 'looks like a RUT whose check digit does not match' },
  },
  {
    what: 'descriptor params longer than 255 characters and an email Quipu cannot read (the contract gives params no rule)',
    path: DESCRIPTOR_PATH,
    body: withParams({ subject: 's'.repeat(300), payer_email: 'pagos at tienda', target_account_number: '9'.repeat(256) }),
    read: operationParams,
    stored: { params: expect.objectContaining({ subject: 's'.repeat(300), payer_email: 'pagos at tienda', target_account_number: '9'.repeat(256) }) },
    warnings: {
      'params.subject': 'must be at most 255 characters long',
      'params.payer_email': 'must be an email address',
      'params.target_account_number': 'must be at most 255 characters long',
    },
  },
];

describe.each(DOUBTFUL)('$what', (row) => {
  it('is accepted and stored as sent; a developer-mode account hears of it in Quipu-Warnings', async () => {
    const api = client(server.baseUrl, developer.api_key);
    const res = await api.post(row.path, row.body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(warningsOf(res)).toEqual(row.warnings);
    expect((await api.get(row.read(res))).body).toMatchObject(row.stored);
  });

  it('is accepted from a production account, without the header', async () => {
    const res = await client(server.baseUrl, production.api_key).post(row.path, row.body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get(HEADER)).toBeNull();
  });
});

it('a request with nothing doubtful has no Quipu-Warnings', async () => {
  const res = await client(server.baseUrl, developer.api_key).post(DESCRIPTOR_PATH, NEW_DESCRIPTOR);
  expect(res.status).toBe(200);
  expect(res.headers.get(HEADER)).toBeNull();
});

describe('the request log line', () => {
  const processes = withServerProcesses();

  it('names the doubtful values at info level, under the request id', async () => {
    const { database, started } = processes;
    const quipu = await serveOnFreePort({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', RUN_WORKER: 'false' }, started);
    const apiKey = /api_key\s+(\S+)/.exec(await quipu.waitFor(/API reference/))![1]!;
    const body = withParams({ target_account_personal_identifier: '12.345.678-9' });
    const res = await call(quipu.baseUrl, 'POST', DESCRIPTOR_PATH, { apiKey, headers: { 'x-request-id': 'doubt-log-1' }, body });
    expect(res.status).toBe(200);
    const lines = () => logLines(quipu).filter((line) => line.reqId === 'doubt-log-1' && line.msg === 'request');
    await expect.poll(lines, { timeout: 5_000 }).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 30, status: 200, warnings: [{ field: 'params.target_account_personal_identifier', message: 'looks like a RUT whose check digit does not match' }] });
  }, 60_000);
});
