// How an account's sandbox faults (developer mode, domain/sandbox-faults.ts) change the sending of
// the notifications a worker claimed together: some go twice, as a provider that missed the first
// answer sends again; and, out of order, the account's notifications go one after another in a
// seeded order other than their own. Accounts without notification faults, and other channels
// (emails), are sent as claimed. The draws are reserved from the account's shared counter, so the
// same seed and the same notifications due together give the same faults in any worker.
import type { Kysely } from 'kysely';
import { kindRule } from '../domain/message-kinds.js';
import { drawsFor, planNotifications, type SandboxFaults } from '../domain/sandbox-faults.js';
import { reserveDraws } from '../store/sandbox-faults.js';
import type { DB, MessageRow } from '../store/schema.js';

export interface FaultPlan {
  /** Sent twice: two requests with the same notification, two attempts logged; the first decides what becomes of the message. */
  twice: boolean;
  /** Started only once this one has been sent: the account's reordered notifications go one at a time, in order. */
  after: FaultPlan | undefined;
  /** Set by the worker once its send has ended, whatever came of it. */
  sent: boolean;
}

export interface Planned {
  row: MessageRow;
  fault?: FaultPlan;
}

/** The claimed rows in the order to start them, each with what its account's faults make of it. */
export async function planFaults(rows: MessageRow[], db: Kysely<DB>, faultsOf: (receiverId: number) => Promise<SandboxFaults | null>): Promise<Planned[]> {
  const notifications = new Map<number, number[]>();
  rows.forEach((row, i) => {
    if (kindRule(row.kind)?.channel !== 'http') return;
    const indexes = notifications.get(row.receiver_id);
    if (indexes) indexes.push(i);
    else notifications.set(row.receiver_id, [i]);
  });
  const planned: Planned[] = rows.map((row) => ({ row }));
  for (const [receiverId, indexes] of notifications) {
    const faults = await faultsOf(receiverId).catch(() => null);
    if (!faults?.notifications) continue;
    const draws = drawsFor(faults.notifications, indexes.length);
    const first = draws > 0 ? await reserveDraws(db, receiverId, draws) : 0;
    const plan = planNotifications(faults.notifications, faults.seed, first, indexes.length);
    // Their own order: as they fell due, then as they were written (the claim orders by due time only).
    const own = [...indexes].sort((x, y) => rows[x]!.next_attempt_at! - rows[y]!.next_attempt_at! || rows[x]!.created_at - rows[y]!.created_at);
    let previous: FaultPlan | undefined;
    // The account's places in the batch, taken by its notifications in the plan's order.
    plan.order.forEach((from, slot) => {
      const fault: FaultPlan = { twice: plan.twice[from]!, after: faults.notifications!.outOfOrder ? previous : undefined, sent: false };
      planned[indexes[slot]!] = { row: rows[own[from]!]!, fault };
      previous = fault;
    });
  }
  return planned;
}
