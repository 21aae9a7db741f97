// Retention deletes a batch per statement, never everything at once: one DELETE of a year's rows
// would hold its locks (and, on SQLite, the database's only write lock, which every create and
// claim waits for) until millions of rows were gone, write them all to the WAL at once (a standby
// falls behind by as much) and undo it all on any failure. Between batches the process's event
// loop serves its requests too.
//
// Cut-offs are on the installation's clock, not an account's: retention is the operator's promise
// about its own storage. Records are dated on their account's clock, which in developer mode only
// ever runs ahead of the installation's, so an account's records read younger and are kept at
// least as long, never pruned early.

/** Calls `pruneBatch` until it removes fewer than `batch` rows; how many went in all. */
export async function pruneInBatches(pruneBatch: (limit: number) => Promise<number>, batch: number): Promise<number> {
  let pruned = 0;
  for (;;) {
    const removed = await pruneBatch(batch);
    pruned += removed;
    if (removed < batch) return pruned;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
