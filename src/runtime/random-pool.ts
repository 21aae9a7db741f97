// Cryptographic randomness served from a pool refilled 4 KiB at a time, as node:crypto's own
// randomUUID does: every payment draws ids and tokens, and one call into the generator per draw
// cost more than the bytes.
import { randomFillSync } from 'node:crypto';
import type { RandomBytes } from '../domain/ids.js';

const POOL_SIZE = 4096;

export function pooledRandom(): RandomBytes {
  const pool = Buffer.alloc(POOL_SIZE);
  let offset = POOL_SIZE;
  return (size) => {
    if (size > POOL_SIZE) return randomFillSync(Buffer.alloc(size));
    if (offset + size > POOL_SIZE) {
      randomFillSync(pool);
      offset = 0;
    }
    // A copy: callers may keep or change what they get, and the pool's bytes are never handed out twice.
    const out = Buffer.from(pool.subarray(offset, offset + size));
    offset += size;
    return out;
  };
}
