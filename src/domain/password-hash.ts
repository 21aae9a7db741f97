// Dashboard passwords are stored as scrypt hashes in a PHC-like string that carries its own
// parameters and salt ("$scrypt$ln=17,r=8,p=1$<salt>$<hash>", base64 without padding), so the cost
// can be raised without making the stored hashes unreadable: a hash made at a lower cost still
// verifies, and is made again at the current cost when its password next signs in. The salt comes
// in as an argument.
import { scrypt, timingSafeEqual } from 'node:crypto';

interface ScryptParameters {
  /** log2 of scrypt's N */
  ln: number;
  r: number;
  p: number;
}

/**
 * log2 of scrypt's N for new hashes: 2^17 × r 8 × 128 bytes = 128 MiB and a few hundred
 * milliseconds a hash, OWASP's recommendation for scrypt. PASSWORD_HASH_COST may raise it; lower
 * values are for test suites and refused with SANDBOX=false (config.ts).
 */
export const PASSWORD_HASH_COST = 17;
/** The range a stored hash's cost is read in: outside it, the string is not one of ours. */
export const MIN_HASH_COST = 10;
export const MAX_HASH_COST = 20;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** scrypt's working memory for the parameters, which maxmem must allow (Node refuses past 32 MiB by default). */
export const scryptMemory = (params: ScryptParameters) => 128 * 2 ** params.ln * params.r * params.p;

function derive(password: string, salt: Buffer, params: ScryptParameters, length: number): Promise<Buffer> {
  const N = 2 ** params.ln;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, { N, r: params.r, p: params.p, maxmem: 2 * scryptMemory(params) }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string, salt: Uint8Array, cost = PASSWORD_HASH_COST): Promise<string> {
  const params = { ln: cost, r: R, p: P };
  const key = await derive(password, Buffer.from(salt), params, KEY_LENGTH);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${b64(Buffer.from(salt))}$${b64(key)}`;
}

function parse(stored: string) {
  const match = FORMAT.exec(stored);
  if (!match) return undefined;
  const [, ln, r, p, salt, hash] = match;
  const params = { ln: Number(ln), r: Number(r), p: Number(p) };
  if (params.ln < MIN_HASH_COST || params.ln > MAX_HASH_COST) return undefined;
  return { params, salt: Buffer.from(salt!, 'base64'), hash: Buffer.from(hash!, 'base64') };
}

/** False for a wrong password and for a stored string that is not one of ours. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.params, parsed.hash.length);
  return timingSafeEqual(key, parsed.hash);
}

/** Whether a stored hash was made at less than the cost new hashes get: its password is hashed again once it is known. */
export function weakerThan(stored: string, cost: number): boolean {
  const parsed = parse(stored);
  return parsed !== undefined && (parsed.params.ln < cost || parsed.params.r < R);
}
