// Validates responses against the provider's published v3 OpenAPI document (spec/).
import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';

const spec = JSON.parse(fs.readFileSync(new URL('../../spec/khipu-v3-openapi.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
formatsPlugin.default(ajv);
ajv.addFormat('double', { type: 'number', validate: () => true });
// Formats are asserted, with one allowance: payer fields are empty text until the payer is known
// (JSON Schema 2020-12 treats formats as annotations, and SDKs read these as plain strings).
const email = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
ajv.addFormat('email', { type: 'string', validate: (s: string) => s === '' || email.test(s) });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
ajv.addSchema({ $id: 'khipu', components: spec.components });

/** Throws with ajv's errors unless `body` matches the provider's schema `name` (e.g. payment-get-payment). */
export function assertProviderSchema(name: string, body: unknown): void {
  const validate = ajv.getSchema(`khipu#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name}`);
  if (!validate(body)) throw new Error(`response does not match ${name}: ${JSON.stringify(validate.errors, null, 2)}`);
}
