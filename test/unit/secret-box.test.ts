// The secret box's key ring (runtime/secret-box.ts): values name the key that sealed them, the key
// id is bound into the tag, previous keys still open what they sealed, and values of the first
// format (`v1:`, naming no key) open with whichever key of the ring sealed them.
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdOf, SecretBox } from '../../src/runtime/secret-box.js';

const A = randomBytes(32);
const B = randomBytes(32);

/** A value as the box sealed it before the ring: `v1:` and base64 of IV, tag and data, no key named. */
function firstFormat(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
}

describe('the secret box key ring', () => {
  it('seals with the current key, naming it, and opens with any key of the ring', () => {
    const sealed = new SecretBox(A).seal('receiver secret');
    expect(sealed.startsWith(`v2:${keyIdOf(A)}:`)).toBe(true);
    const rotated = new SecretBox(B, [A]);
    expect(rotated.open(sealed)).toBe('receiver secret');
    expect(rotated.seal('x').startsWith(rotated.currentPrefix)).toBe(true);
    expect(rotated.currentPrefix).toBe(`v2:${keyIdOf(B)}:`);
    expect(() => new SecretBox(B).open(sealed)).toThrow(`sealed with key ${keyIdOf(A)}, which is not in the key ring`);
  });

  it('opens values of the first format with whichever key of the ring sealed them', () => {
    const old = firstFormat(A, 'sealed before the ring');
    expect(new SecretBox(B, [A]).open(old)).toBe('sealed before the ring');
    expect(new SecretBox(A).open(old)).toBe('sealed before the ring');
    expect(() => new SecretBox(B).open(old)).toThrow('sealed with a key that is not in the key ring');
  });

  it('refuses a value whose key id was changed, or whose data was', () => {
    const sealed = new SecretBox(A).seal('receiver secret');
    const [, , payload] = sealed.split(':');
    // The same data presented as B's: B does not open it, and A's id is bound into the tag.
    expect(() => new SecretBox(B, [A]).open(`v2:${keyIdOf(B)}:${payload}`)).toThrow();
    const raw = Buffer.from(payload!, 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => new SecretBox(A).open(`v2:${keyIdOf(A)}:${raw.toString('base64')}`)).toThrow();
  });

  it('tells keys apart by an id that is not the key', () => {
    expect(keyIdOf(A)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyIdOf(A)).not.toBe(keyIdOf(B));
    expect(A.toString('hex')).not.toContain(keyIdOf(A));
  });
});
