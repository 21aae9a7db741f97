// `quipu keys rotate`: a new key signs from now on; the previous ones keep verifying until the
// tokens they signed expire, and keys past that are deleted. Every process reloads its keys.
import type { AppContext } from './context.js';
import { type Rotation, rotateKeyRing } from './key-ring.js';
import { tokenKeys } from './token-keys.js';

export async function rotateKeys(ctx: AppContext): Promise<Rotation> {
  return rotateKeyRing(ctx.db, ctx.feed, ctx.clock, tokenKeys(ctx.secrets));
}
