// `quipu keys rotate`: a new key signs from now on; the previous ones keep verifying until the
// tokens they signed expire, and keys past that are deleted. Every process reloads its keys.
import { deleteKeysRetiredBefore, retireKeys } from '../store/oauth-keys.js';
import type { AppContext } from './context.js';
import { createSigningKey, KEYS_TOPIC, keyRetentionCutoff } from './token-keys.js';

export interface Rotation {
  kid: string;
  retired: string[];
  deleted: number;
}

export async function rotateKeys(ctx: AppContext): Promise<Rotation> {
  return ctx.feed.transaction(ctx.db, async (trx, publish) => {
    const now = ctx.clock.now();
    const retired = await retireKeys(trx, now.getTime());
    const kid = await createSigningKey(trx, ctx.secrets, now);
    const deleted = await deleteKeysRetiredBefore(trx, keyRetentionCutoff(now));
    await publish(KEYS_TOPIC, kid);
    return { kid, retired, deleted };
  });
}
