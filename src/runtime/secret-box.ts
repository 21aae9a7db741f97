// Receiver secrets are kept so they can sign notifications and check v2 signatures later, so they
// are encrypted (AES-256-GCM), not hashed. The key comes from QUIPU_ENCRYPTION_KEY or, for a
// developer's machine, from a key file generated once in the data directory.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const VERSION = 'v1';

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
  }

  open(sealed: string): string {
    const [version, payload] = sealed.split(':');
    if (version !== VERSION || !payload) throw new Error('unknown sealed-secret format');
    const raw = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

export function parseKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('QUIPU_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

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
