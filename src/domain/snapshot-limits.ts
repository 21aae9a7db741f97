// How much a sandbox account may keep in snapshots: a number of them, and the bytes they hold
// together (SANDBOX_SNAPSHOTS_PER_ACCOUNT, SANDBOX_SNAPSHOT_BYTES_PER_ACCOUNT). Whoever may take
// snapshots could otherwise fill the database's disk, one account's whole state at a time.

export interface SnapshotLimits {
  perAccount: number;
  bytesPerAccount: number;
}

/** Why an account that keeps `count` snapshots may take no other; undefined when it may. */
export function noRoomForSnapshot(count: number, limits: SnapshotLimits): string | undefined {
  if (count < limits.perAccount) return undefined;
  return `The account keeps ${count} snapshots, the most SANDBOX_SNAPSHOTS_PER_ACCOUNT allows (${limits.perAccount}): delete one first`;
}

/** Why a snapshot that brings the account's snapshots to `bytes` is not kept; undefined when it is. */
export function snapshotsTooLarge(bytes: number, limits: SnapshotLimits): string | undefined {
  if (bytes <= limits.bytesPerAccount) return undefined;
  return `With this snapshot the account's snapshots would hold ${bytes} bytes, more than SANDBOX_SNAPSHOT_BYTES_PER_ACCOUNT allows (${limits.bytesPerAccount}): nothing was recorded; delete a snapshot first`;
}
