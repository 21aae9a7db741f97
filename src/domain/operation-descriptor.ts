// The operation descriptor API: the request (`bank` and `params`, each a field table) and the
// descriptor itself, a versioned envelope sealed with AES-256-GCM under a key of the descriptor key
// ring. Quipu issues descriptors and is their only reader, so the cipher is its own; the outer
// shape is the provider's: standard Base64 of a JSON object whose `m` is the ciphertext.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { FieldErrors, type FieldError } from './errors.js';
import { type FieldTable, type RawValue, decodeFields, text } from './field-rules.js';
import { V3_CURRENCIES } from './currency.js';
import { formatAmount } from './money.js';
import { parseRut } from './rut.js';
import { amountOf } from './subscription-request.js';

export const DESCRIPTOR_REQUEST_FIELDS: FieldTable = {
  bank: {
    kind: 'string',
    required: true,
    maxLength: 255,
    description: 'Identifier of the origin bank, where the payer runs the transfer (a bank_id of GET /v3/banks names one Quipu can drive)',
  },
};

export const DESCRIPTOR_PARAMS_FIELDS: FieldTable = {
  subject: { kind: 'string', maxLength: 255, lenient: true, description: 'Description of the transfer' },
  amount: { kind: 'amount', description: "Transfer amount, up to the currency's decimals (at most 4)" },
  currency_code: { kind: 'string', maxLength: 255, enum: V3_CURRENCIES, description: 'ISO 4217 code' },
  payer_email: { kind: 'email', maxLength: 255, lenient: true, description: "Payer's email" },
  payer_name: { kind: 'string', maxLength: 255, lenient: true, description: "Payer's name" },
  target_account_bank: { kind: 'string', maxLength: 255, lenient: true, description: 'Target bank name as seen in the origin bank' },
  target_account_alias: { kind: 'string', maxLength: 255, lenient: true, description: 'Alias for the new account if it is the first transfer' },
  target_account_name: { kind: 'string', maxLength: 255, lenient: true, description: 'Real name of the recipient' },
  target_account_number: {
    kind: 'text-or-number',
    maxLength: 255,
    lenient: true,
    description: 'Target account identifier (a JSON number is kept as its decimal text)',
  },
  target_account_personal_identifier: { kind: 'string', maxLength: 255, lenient: true, description: "Identifier of the target account's owner" },
};

/** The params as sealed: every member given, as text (the amount as exact decimal text). */
export type DescriptorParams = Readonly<Partial<Record<string, string>>>;

export interface DescriptorRequest {
  bank: string;
  params: DescriptorParams;
}

/** How long an operation can be run after it is issued; a retired key is kept as long. */
export const OPERATION_LIFETIME_MS = 24 * 3600_000;

/**
 * What looks like a Chilean RUT but whose check digit does not match is doubtful, not wrong: the
 * contract says only "string", and the provider's own example (`12.345.678-9`) does not match.
 */
const RUT_SHAPE = /^\d{1,2}\.?\d{3}\.?\d{3}-?[\dkK]$/;

/** Chilean banks transfer pesos: a descriptor without a currency is in CLP. */
export const DEFAULT_CURRENCY = 'CLP';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The members of `raw` the table knows (the transport has already ignored and named the others). */
function knownMembers(table: FieldTable, raw: Readonly<Record<string, unknown>>): Record<string, RawValue> {
  const known: Record<string, RawValue> = {};
  for (const name in table) if (Object.hasOwn(raw, name)) known[name] = raw[name] as RawValue;
  return known;
}

/**
 * Decodes a request; a 400 names every offending field at once (`params.amount` for a member).
 * Doubtful values are accepted and added to `doubts`.
 */
export function parseDescriptorRequest(
  raw: Readonly<Record<string, unknown>>,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
): DescriptorRequest {
  const errors = new FieldErrors(found, doubts);
  const top = decodeFields(DESCRIPTOR_REQUEST_FIELDS, knownMembers(DESCRIPTOR_REQUEST_FIELDS, raw), errors);
  const params: Record<string, string> = {};
  if (raw.params === undefined || raw.params === null) errors.add('params', 'is required');
  else if (!isObject(raw.params)) errors.add('params', 'must be a JSON object');
  else {
    const inner = new FieldErrors();
    const f = decodeFields(DESCRIPTOR_PARAMS_FIELDS, knownMembers(DESCRIPTOR_PARAMS_FIELDS, raw.params), inner);
    // Checked in the currency the transfer runs in: without one, pesos, which have no cents.
    const amount = amountOf(inner, 'amount', text(f, 'amount'), text(f, 'currency_code') ?? DEFAULT_CURRENCY, 1);
    const identifier = text(f, 'target_account_personal_identifier');
    if (identifier !== undefined && RUT_SHAPE.test(identifier) && !parseRut(identifier))
      inner.doubt('target_account_personal_identifier', 'looks like a RUT whose check digit does not match');
    for (const e of inner.list) errors.add(`params.${e.field}`, e.message);
    for (const d of inner.doubts) errors.doubt(`params.${d.field}`, d.message);
    for (const [name, value] of f) params[name] = name === 'amount' ? formatAmount(amount) : String(value);
  }
  errors.throwIfAny();
  return { bank: text(top, 'bank')!, params };
}

/** Everything a descriptor binds: nothing of it can change without the tag failing. */
export interface DescriptorContent {
  operationId: string;
  receiverId: number;
  bank: string;
  params: DescriptorParams;
  createdAt: number;
  expiresAt: number;
}

/** The envelope's format version: a reader refuses versions it does not know. */
export const ENVELOPE_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Key ids: 16 lowercase hex characters. */
export const KEY_ID_PATTERN = /^[0-9a-f]{16}$/;

export interface DescriptorKey {
  kid: string;
  /** 32 bytes. */
  secret: Buffer;
}

/** The envelope as read, before it is opened: which key it names. */
export interface Envelope {
  v: number;
  k: string;
  n: Buffer;
  m: Buffer;
}

/** The version and key id are authenticated too: a descriptor cannot be moved under another key or version. */
const additionalData = (v: number, kid: string) => Buffer.from(`quipu-descriptor/${v}/${kid}`, 'utf8');

function plaintextOf(content: DescriptorContent): string {
  return JSON.stringify({
    id: content.operationId,
    account: content.receiverId,
    bank: content.bank,
    params: content.params,
    iat: content.createdAt,
    exp: content.expiresAt,
  });
}

/** Seals `content` under `key` with a fresh `nonce` (12 random bytes): the description, standard Base64. */
export function sealDescriptor(content: DescriptorContent, key: DescriptorKey, nonce: Uint8Array): string {
  if (nonce.length !== NONCE_BYTES) throw new Error('a descriptor nonce is 12 bytes');
  const cipher = createCipheriv('aes-256-gcm', key.secret, nonce);
  cipher.setAAD(additionalData(ENVELOPE_VERSION, key.kid));
  const sealed = Buffer.concat([cipher.update(plaintextOf(content), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  const envelope = { m: sealed.toString('base64'), v: ENVELOPE_VERSION, k: key.kid, n: Buffer.from(nonce).toString('base64') };
  return Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function strictBase64(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return undefined;
  return Buffer.from(text, 'base64');
}

/** The envelope of a description, or undefined for anything that is not one (truncated, not Base64, not our JSON). */
export function readEnvelope(description: string): Envelope | undefined {
  const outer = strictBase64(description);
  if (!outer) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(outer.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(json) || json.v !== ENVELOPE_VERSION || typeof json.k !== 'string' || !KEY_ID_PATTERN.test(json.k)) return undefined;
  if (typeof json.n !== 'string' || typeof json.m !== 'string') return undefined;
  const n = strictBase64(json.n);
  const m = strictBase64(json.m);
  if (!n || n.length !== NONCE_BYTES || !m || m.length <= TAG_BYTES) return undefined;
  return { v: json.v, k: json.k, n, m };
}

function contentOf(json: unknown): DescriptorContent | undefined {
  if (!isObject(json) || typeof json.id !== 'string' || typeof json.account !== 'number' || typeof json.bank !== 'string') return undefined;
  if (!isObject(json.params) || typeof json.iat !== 'number' || typeof json.exp !== 'number') return undefined;
  if (!Object.values(json.params).every((v) => typeof v === 'string')) return undefined;
  return { operationId: json.id, receiverId: json.account, bank: json.bank, params: json.params as DescriptorParams, createdAt: json.iat, expiresAt: json.exp };
}

/** The content of an envelope under its key, or undefined when the tag does not verify. */
export function openEnvelope(envelope: Envelope, key: DescriptorKey): DescriptorContent | undefined {
  if (envelope.k !== key.kid) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', key.secret, envelope.n);
  decipher.setAAD(additionalData(envelope.v, envelope.k));
  decipher.setAuthTag(envelope.m.subarray(envelope.m.length - TAG_BYTES));
  let plain: string;
  try {
    plain = Buffer.concat([decipher.update(envelope.m.subarray(0, envelope.m.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
  return contentOf(JSON.parse(plain));
}
