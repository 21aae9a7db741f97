// Faults on demand (developer mode): a setting per account that makes Quipu misbehave the way a real
// provider does, so a merchant's tests can prove their retry logic (docs/sandbox-faults.md). Each
// fault is a part of the setting; an account without one behaves, and costs, exactly as before.
//
// The same seed gives the same faults: every choice (which notification goes twice, in which order
// the due ones go) is a draw of a counter-based generator, splitmix32 of (seed, n), where n counts
// the account's draws from the setting on. No Math.random: the counter lives in the database, so
// the same seed and the same sequence of events give the same faults whichever process draws.

/** The statuses a refused API request may get: a rate limit, or a provider that is down. */
export const FAULT_API_STATUSES = [429, 503] as const;
export type FaultApiStatus = (typeof FAULT_API_STATUSES)[number];

/** The most requests one setting may refuse or drop: a test needs a few, never an account out of service. */
export const MAX_FAULT_COUNT = 1_000;
export const MAX_RETRY_AFTER_SECONDS = 3_600;
export const DEFAULT_RETRY_AFTER_SECONDS = 1;
export const MAX_FAULT_SEED = 2 ** 32 - 1;

export interface SandboxFaults {
  seed: number;
  /** The account's next `count` API requests are refused with `status` and Retry-After, before anything runs. */
  api: { status: FaultApiStatus; count: number; retryAfterSeconds: number } | null;
  /** The account's next `count` API requests (after any refused ones) run and commit, and their connection is closed instead of answered. */
  dropConnection: { count: number } | null;
  /** DemoBank answers every transfer of the account `uncertain`, and holds what it decided until the fault is removed. */
  bank: { transfers: 'uncertain' } | null;
  notifications: NotificationFaults | null;
}

/**
 * Notifications: each sent twice with probability `duplicate` (1: every one); with `outOfOrder`,
 * those due together are sent one after another in an order other than their own.
 */
export interface NotificationFaults {
  duplicate: number;
  outOfOrder: boolean;
}

/** The setting as the API takes and answers it, and as it is stored: snake_case, every part optional. */
export interface FaultSettingJson {
  seed?: number;
  api?: { status: FaultApiStatus; count: number; retry_after_seconds?: number };
  drop_connection?: { count: number };
  bank?: { transfers: 'uncertain' };
  notifications?: { duplicate?: number; out_of_order?: boolean };
}

/** The faults a setting asks for, its defaults filled in; null when it asks for none. */
export function faultsFromSetting(setting: FaultSettingJson): SandboxFaults | null {
  const notifications = setting.notifications;
  const faults: SandboxFaults = {
    seed: setting.seed ?? 0,
    api: setting.api
      ? { status: setting.api.status, count: setting.api.count, retryAfterSeconds: setting.api.retry_after_seconds ?? DEFAULT_RETRY_AFTER_SECONDS }
      : null,
    dropConnection: setting.drop_connection ? { count: setting.drop_connection.count } : null,
    bank: setting.bank ? { transfers: setting.bank.transfers } : null,
    notifications:
      notifications && ((notifications.duplicate ?? 0) > 0 || notifications.out_of_order === true)
        ? { duplicate: notifications.duplicate ?? 0, outOfOrder: notifications.out_of_order === true }
        : null,
  };
  return faults.api || faults.dropConnection || faults.bank || faults.notifications ? faults : null;
}

/** The setting of these faults, every default written out. */
export function settingOf(faults: SandboxFaults): FaultSettingJson {
  const setting: FaultSettingJson = { seed: faults.seed };
  if (faults.api) setting.api = { status: faults.api.status, count: faults.api.count, retry_after_seconds: faults.api.retryAfterSeconds };
  if (faults.dropConnection) setting.drop_connection = { count: faults.dropConnection.count };
  if (faults.bank) setting.bank = { transfers: faults.bank.transfers };
  if (faults.notifications) setting.notifications = { duplicate: faults.notifications.duplicate, out_of_order: faults.notifications.outOfOrder };
  return setting;
}

/** The faults of a stored setting (JSON text), null for none. */
export const storedFaults = (text: string | null): SandboxFaults | null => (text === null ? null : faultsFromSetting(JSON.parse(text) as FaultSettingJson));

/** Whether the account's API requests are counted against its faults: only then does a request cost a look at the counters. */
export const countsRequests = (faults: SandboxFaults | null): boolean => faults !== null && (faults.api !== null || faults.dropConnection !== null);

/** Draw number `n` of a seed, in [0, 1): splitmix32 of the seed advanced n + 1 steps. */
export function faultDraw(seed: number, n: number): number {
  let z = (seed + Math.imul(n + 1, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return ((z ^ (z >>> 15)) >>> 0) / 2 ** 32;
}

/** How many draws a plan of `count` notifications takes: one per notification for duplicates, count - 1 for an order. */
export function drawsFor(faults: NotificationFaults, count: number): number {
  const duplicates = faults.duplicate > 0 && faults.duplicate < 1 ? count : 0;
  return duplicates + (faults.outOfOrder && count > 1 ? count - 1 : 0);
}

export interface NotificationPlan {
  /** Indexes of the notifications (given oldest first) in the order they are sent. */
  order: number[];
  /** Per notification (by its index), whether it is sent twice. */
  twice: boolean[];
}

/**
 * What the faults make of `count` notifications due together, oldest first, drawing from draw
 * number `first` on (drawsFor(count) of them). Out of order, the order is a seeded shuffle, and never
 * their own: a shuffle that left them in place is reversed.
 */
export function planNotifications(faults: NotificationFaults, seed: number, first: number, count: number): NotificationPlan {
  let n = first;
  const twice = Array.from({ length: count }, () => faults.duplicate >= 1 || (faults.duplicate > 0 && faultDraw(seed, n++) < faults.duplicate));
  const order = Array.from({ length: count }, (_, i) => i);
  if (faults.outOfOrder && count > 1) {
    for (let i = count - 1; i > 0; i--) {
      const j = Math.floor(faultDraw(seed, n++) * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    if (order.every((index, i) => index === i)) order.reverse();
  }
  return { order, twice };
}
