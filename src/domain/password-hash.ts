// Dashboard passwords are stored as scrypt hashes in a PHC-like string that carries its own
// parameters and salt ("$scrypt$ln=15,r=8,p=1$<salt>$<hash>", base64 without padding), so the cost
// can be raised later without making the stored hashes unreadable. The salt comes in as an argument.
import { scrypt, timingSafeEqual } from 'node:crypto';

interface ScryptParameters {
  /** log2 of scrypt's N */
  ln: number;
  r: number;
  p: number;
}

// 2^15 × 8 × 128 bytes = 32 MiB and about 50 ms a hash: OWASP's recommended minimum for scrypt.
const CURRENT: ScryptParameters = { ln: 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, params: ScryptParameters, length: number): Promise<Buffer> {
  const N = 2 ** params.ln;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, { N, r: params.r, p: params.p, maxmem: 256 * N * params.r }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** The shortest dashboard password a person may choose (generated ones are 20 characters). */
export const MIN_PASSWORD_LENGTH = 8;

export async function hashPassword(password: string, salt: Uint8Array): Promise<string> {
  const key = await derive(password, Buffer.from(salt), CURRENT, KEY_LENGTH);
  return `$scrypt$ln=${CURRENT.ln},r=${CURRENT.r},p=${CURRENT.p}$${b64(Buffer.from(salt))}$${b64(key)}`;
}

/** False for a wrong password and for a stored string that is not one of ours. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const [, ln, r, p, salt, hash] = match;
  const expected = Buffer.from(hash!, 'base64');
  const params = { ln: Number(ln), r: Number(r), p: Number(p) };
  if (params.ln < 10 || params.ln > 20) return false;
  const key = await derive(password, Buffer.from(salt!, 'base64'), params, expected.length);
  return timingSafeEqual(key, expected);
}
