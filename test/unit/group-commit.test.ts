// GroupCommit: writes that arrive in one turn are one batch; while what the batch waits for (on
// SQLite, the WAL flush under way) has not ended, later writes join it, and each caller learns of
// its own write's error alone.
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/group-commit.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('writes what arrives in one turn as one batch', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit(async (items: number[]) => {
      batches.push(items);
      return items.map(() => undefined);
    });
    await Promise.all([group.add(1), group.add(2), group.add(3)]);
    await Promise.all([group.add(4)]);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('waits for what it is told to wait for, and writes what arrived meanwhile in the same batch', async () => {
    const batches: number[][] = [];
    let open!: () => void;
    let flushing: Promise<void> | undefined = new Promise<void>((resolve) => (open = resolve));
    const group = new GroupCommit(
      async (items: number[]) => {
        batches.push(items);
        return items.map(() => undefined);
      },
      () => flushing,
    );
    const first = group.add(1);
    await nextTurn();
    await nextTurn();
    const second = group.add(2);
    await nextTurn();
    expect(batches).toEqual([]);
    flushing = undefined;
    open();
    await Promise.all([first, second]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('fails only the write whose error the batch reports, and every write of a batch that failed whole', async () => {
    const group = new GroupCommit(async (items: number[]) => items.map((n) => (n === 2 ? new Error('two') : undefined)));
    const results = await Promise.allSettled([group.add(1), group.add(2), group.add(3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const broken = new GroupCommit(async (): Promise<unknown[]> => {
      throw new Error('disk full');
    });
    const all = await Promise.allSettled([broken.add(1), broken.add(2)]);
    expect(all.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(['disk full', 'disk full']);
  });
});
