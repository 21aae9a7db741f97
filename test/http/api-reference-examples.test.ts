// The API reference at /docs: every operation that takes a body offers an example, and each is
// accepted as "Try it out" sends it (its first content type, the developer's key, the operator's
// token on the operator API and the sandbox's accounts), given the object its path names: a payment paid at DemoBank, or a
// pending one for a delete. The page carries Quipu's name, not the generator's.
import { beforeAll, describe, expect, it } from 'vitest';
import { payWithDemoBank } from '../../src/app/pay-with-demobank.js';
import { call, client } from '../helpers/http.js';
import { createSubscriptionOver, signAtDemoBank } from '../helpers/subscriptions.js';
import { useTestServer } from '../helpers/server.js';

const OPERATOR_TOKEN = 'operator-token-for-the-api-reference-examples';
let doc: { paths: Record<string, Record<string, Operation>> };

interface Media {
  example?: Record<string, unknown>;
  schema?: { properties?: Record<string, { examples?: unknown[] }> };
}

interface Operation {
  requestBody?: { content: Record<string, Media> };
}

/**
 * What "Try it out" sends: the example as JSON; a form is filled field by field from each field's
 * own example, and a field left empty is not sent.
 */
function sentBody(type: string, media: Media, example: Record<string, unknown>): string {
  if (type === 'application/json') return JSON.stringify(example);
  const fields = Object.entries(media.schema?.properties ?? {}).map(([name, field]): [string, string] => [name, String(field.examples?.[0] ?? '')]);
  return new URLSearchParams(fields.filter(([, value]) => value !== '')).toString();
}

// Every feature an operation with a body may need: refunds, confirm, receivers (integrator).
const setup = useTestServer({ OPERATOR_TOKEN }, { features: { confirm: true, refunds: true, integrator: true, contractUrl: true } });
beforeAll(async () => {
  doc = (await call(setup.server.baseUrl, 'GET', '/openapi.json')).body;
});

const api = () => client(setup.server.baseUrl, setup.account.api_key);

async function newPayment(): Promise<string> {
  const created = await api().post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'For the examples' });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

/** The object a path names: what the operation acts on. */
async function pathFor(method: string, template: string): Promise<string> {
  if (!template.includes('{')) return template;
  const id = await newPayment();
  if (method !== 'delete') await payWithDemoBank(setup.server.ctx, id, 'pay');
  const path = template.replace('{id}', id);
  if (path.includes('{')) throw new Error(`no object for the path ${template}`);
  return path;
}

/** What "Try it out" cannot know: the identifiers of objects the developer created first. */
async function withOwnObjects(example: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (!('subscription_id' in example)) return example;
  const subscriptionId = await createSubscriptionOver(api());
  await signAtDemoBank(setup.server.ctx, subscriptionId);
  return { ...example, subscription_id: subscriptionId };
}

const operationsWithBodies = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => op.requestBody)
      .map(([method, op]) => ({ method, path, op })),
  );

describe('the examples of /docs', () => {
  it('exist for every operation that takes a body', () => {
    const operations = operationsWithBodies();
    expect(operations.length).toBeGreaterThanOrEqual(12);
    const without = operations.filter(({ op }) => Object.values(op.requestBody!.content).some((media) => media.example === undefined));
    expect(without.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  });

  it("fill a form's fields one by one with the example's values, and leave the others empty", () => {
    const form = doc.paths['/2.0/payments']!.post!.requestBody!.content['application/x-www-form-urlencoded']!;
    const filled = Object.entries(form.schema!.properties!).filter(([, field]) => field.examples?.[0] !== '');
    expect(Object.fromEntries(filled.map(([name, field]) => [name, field.examples![0]]))).toEqual(form.example);
  });

  it('are each accepted as they stand', async () => {
    const refused: string[] = [];
    for (const { method, path, op } of operationsWithBodies()) {
      const [type, media] = Object.entries(op.requestBody!.content)[0]!;
      // One without an example is the test above's failure.
      if (media.example === undefined) continue;
      const example = await withOwnObjects(media.example);
      const headers: Record<string, string> = { 'content-type': type };
      if (path.startsWith('/operator/') || path.startsWith('/sandbox/accounts')) headers.authorization = `Bearer ${OPERATOR_TOKEN}`;
      else headers['x-api-key'] = setup.account.api_key;
      const rawBody = sentBody(type, media, example);
      const res = await call(setup.server.baseUrl, method.toUpperCase(), await pathFor(method, path), { headers, rawBody });
      if (res.status < 200 || res.status >= 300) refused.push(`${method.toUpperCase()} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(refused).toEqual([]);
  }, 60_000);
});

describe('the /docs page', () => {
  it('says Quipu, not the generator', async () => {
    const page = await fetch(`${setup.server.baseUrl}/docs/`);
    const html = await page.text();
    expect(html).toContain('<title>Quipu API reference</title>');
    expect(html).not.toMatch(/Swagger UI<\/title>/);
    expect(html).toContain('theme/quipu.svg');
    const initializer = await (await fetch(`${setup.server.baseUrl}/docs/static/swagger-initializer.js`)).text();
    expect(initializer).toContain(`data:image/svg+xml;base64,`);
    const mark = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer)![1]!;
    expect(Buffer.from(mark, 'base64').toString()).toContain('<title>Quipu</title>');
  });
});
