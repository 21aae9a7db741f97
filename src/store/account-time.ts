// Scans across accounts (due messages, reminders, debits, deliveries of funds, expiries) compare an
// account's dates with that account's clock: its own once moved in developer mode, else the
// installation's. The store keeps each account's offset (merchants.clock_offset_ms); a scan asks for
// it only when some account has a clock of its own, so an installation without one runs the same
// statements as before, on the same indexes. A scan may also be of one account alone (its work woken
// by a move of its clock, jobs/runner.ts): every row compared is that account's, on its clock.
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { installationNow, type ScanTime } from '../domain/scan-time.js';

/** The instant of the scan on the clock of the account of `table`'s row (its receiver_id). */
export function accountNow(time: ScanTime, table: string): RawBuilder<number> {
  if (!time.ownClocks) return sql<number>`${installationNow(time)}`;
  return sql<number>`${time.wallMs} + coalesce((select m.clock_offset_ms from merchants m where m.receiver_id = ${sql.ref(`${table}.receiver_id`)}), ${time.offsetMs})`;
}

/**
 * `table.column op (the row's account's now + shiftMs)`. The first comparison, with the furthest
 * clock, keeps a range scan on the column's index.
 */
export function onAccountClock(table: string, column: string, op: '<' | '<=', time: ScanTime, shiftMs = 0): RawBuilder<SqlBool> {
  const ref = sql.ref(`${table}.${column}`);
  const compare = sql.raw(op);
  if (time.account !== undefined)
    return sql<SqlBool>`(${sql.ref(`${table}.receiver_id`)} = ${time.account} and ${ref} ${compare} ${installationNow(time) + shiftMs})`;
  if (!time.ownClocks) return sql<SqlBool>`${ref} ${compare} ${installationNow(time) + shiftMs}`;
  return sql<SqlBool>`(${ref} ${compare} ${time.wallMs + time.aheadMs + shiftMs} and ${ref} ${compare} ${accountNow(time, table)} + ${shiftMs})`;
}
