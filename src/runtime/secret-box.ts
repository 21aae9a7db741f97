// Receiver secrets are kept so they can sign notifications and check v2 signatures later, so they
// are encrypted (AES-256-GCM), not hashed. The key comes from QUIPU_ENCRYPTION_KEY or, for a
// developer's machine, from a key file generated once in the data directory.
//
// The key is replaceable (docs/security.md, key lifecycle): the box holds a ring, the current key
// and the previous ones (QUIPU_ENCRYPTION_KEY_PREVIOUS). New values are sealed with the current key
// and name it (`v2:<key id>:...`, the id bound into the tag); values sealed with a previous key
// still open, until `quipu keys reseal` has sealed them anew and the previous key is dropped. Values
// of the first format (`v1:...`, before the ring) name no key: every key of the ring is tried.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const UNNAMED = 'v1';
const NAMED = 'v2';

/** A key's public name: derived from it one way, so it tells keys apart and reveals nothing of them. */
export const keyIdOf = (key: Buffer): string => createHmac('sha256', key).update('quipu secret box key id').digest('hex').slice(0, 16);

export class SecretBox {
  /** The id of the key new values are sealed with. */
  readonly keyId: string;
  readonly #ring: ReadonlyMap<string, Buffer>;

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.keyId = keyIdOf(current);
    this.#ring = new Map([current, ...previous].map((key) => [keyIdOf(key), key]));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#ring.get(this.keyId)!, iv).setAAD(Buffer.from(this.keyId));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${NAMED}:${this.keyId}:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
  }

  open(sealed: string): string {
    const parts = sealed.split(':');
    if (parts[0] === NAMED && parts.length === 3) {
      const key = this.#ring.get(parts[1]!);
      if (!key) throw new Error(`sealed with key ${parts[1]}, which is not in the key ring`);
      return decrypt(key, parts[2]!, Buffer.from(parts[1]!));
    }
    if (parts[0] !== UNNAMED || parts.length !== 2 || !parts[1]) throw new Error('unknown sealed-secret format');
    for (const key of this.#ring.values()) {
      try {
        return decrypt(key, parts[1], undefined);
      } catch {
        // another key of the ring sealed it, or none did
      }
    }
    throw new Error('sealed with a key that is not in the key ring');
  }

  /** The text every value sealed with the current key starts with: what `quipu keys reseal` leaves alone. */
  get currentPrefix(): string {
    return `${NAMED}:${this.keyId}:`;
  }
}

function decrypt(key: Buffer, payload: string, aad: Buffer | undefined): string {
  const raw = Buffer.from(payload, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

export function parseKey(text: string, name = 'QUIPU_ENCRYPTION_KEY'): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes, as 64 hex characters or base64`);
  return key;
}

/** The previous keys of the ring: QUIPU_ENCRYPTION_KEY_PREVIOUS, keys separated by commas. */
export const parsePreviousKeys = (configured: readonly string[]): Buffer[] => configured.map((text) => parseKey(text, 'QUIPU_ENCRYPTION_KEY_PREVIOUS'));

/** The configured key, or the data directory's key file (created on first use). */
export function loadEncryptionKey(configured: string | undefined, dataDir: string): { key: Buffer; generatedAt?: string } {
  if (configured) return { key: parseKey(configured) };
  const file = path.join(dataDir, 'encryption.key');
  if (fs.existsSync(file)) return { key: parseKey(fs.readFileSync(file, 'utf8')) };
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  // Written whole under a name of its own, then linked into place: link fails when the file
  // exists, and a process starting at the same moment never reads a key file still being written.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(draft, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(draft, file);
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { key: parseKey(fs.readFileSync(file, 'utf8')) };
    throw error;
  } finally {
    fs.rmSync(draft, { force: true });
  }
  return { key, generatedAt: file };
}
