// `quipu keys reseal`: every value sealed with the secret box is sealed anew with the current
// QUIPU_ENCRYPTION_KEY, a batch of rows per transaction. Values already under the current key are
// left alone, so a second run reseals nothing; once none is left under another key, the previous
// keys can leave QUIPU_ENCRYPTION_KEY_PREVIOUS (docs/security.md, key lifecycle). What each value
// opens to is unchanged, so no process's cache needs to hear of it.
import { countNotUnder, replaceSealed, SEALED_COLUMNS, type SealedValue, valuesNotUnder } from '../store/sealed-values.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

const BATCH = 200;

export interface ColumnReseal {
  /** `table.column` */
  column: string;
  resealed: number;
  /** Values no key of the ring opens: sealed with a key missing from QUIPU_ENCRYPTION_KEY_PREVIOUS. */
  unopenable: number;
  /** Values still under another key afterwards: the unopenable ones, and any written meanwhile by a process without the current key. */
  left: number;
}

export interface Reseal {
  /** The id of the key every value is now sealed with. */
  keyId: string;
  columns: ColumnReseal[];
}

export async function resealSecrets(ctx: AppContext): Promise<Reseal> {
  const prefix = ctx.secrets.currentPrefix;
  const columns: ColumnReseal[] = [];
  for (const at of SEALED_COLUMNS) {
    let resealed = 0;
    let unopenable = 0;
    let after: unknown[] | undefined;
    for (;;) {
      const batch: SealedValue[] = await valuesNotUnder(ctx.db, at, prefix, after, BATCH);
      if (batch.length === 0) break;
      const outcome = await inTransaction(ctx.db, async (trx) => {
        let changed = 0;
        let unopened = 0;
        for (const value of batch) {
          const plain = openOrUndefined(ctx, value.sealed);
          if (plain === undefined) unopened++;
          else if (await replaceSealed(trx, at, value, ctx.secrets.seal(plain))) changed++;
        }
        return { changed, unopened };
      });
      resealed += outcome.changed;
      unopenable += outcome.unopened;
      after = batch[batch.length - 1]!.key;
    }
    columns.push({ column: `${at.table}.${at.column}`, resealed, unopenable, left: await countNotUnder(ctx.db, at, prefix) });
  }
  return { keyId: ctx.secrets.keyId, columns };
}

function openOrUndefined(ctx: AppContext, sealed: string): string | undefined {
  try {
    return ctx.secrets.open(sealed);
  } catch {
    return undefined;
  }
}
