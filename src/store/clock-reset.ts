// What a reset of the developer clock to real time moves with it: the schedules Quipu keeps on
// that clock. Every job run and message delivery due after the real time is brought back by the
// offset removed, so that what was due in five minutes is still due in five minutes; what would
// then fall before now is due now. Rows already due stay due.
import { type Expression, type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

const backBy = (column: Expression<number>, offsetMs: number, now: number) =>
  sql<number>`case when ${column} - ${offsetMs} > ${now} then ${column} - ${offsetMs} else ${now} end`;

export async function bringSchedulesBack(trx: Kysely<DB>, offsetMs: number, now: number): Promise<void> {
  await trx
    .updateTable('jobs')
    .set((eb) => ({ run_at: backBy(eb.ref('run_at'), offsetMs, now) }))
    .where('run_at', '>', now)
    .execute();
  await trx
    .updateTable('messages')
    .set((eb) => ({
      next_attempt_at: backBy(eb.ref('next_attempt_at') as Expression<number>, offsetMs, now),
      round_started_at: eb('round_started_at', '-', offsetMs),
    }))
    .where('status', '=', 'pending')
    .where('next_attempt_at', '>', now)
    .execute();
}
