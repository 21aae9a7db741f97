// Dashboard sessions, found by the hash of the cookie's token.
import type { Kysely } from 'kysely';
import type { DashboardRole } from '../domain/dashboard-roles.js';
import type { DB } from './schema.js';

export interface SessionRow {
  tokenHash: string;
  userId: string;
  /** The password was right; the second factor's code is still due. */
  secondFactorDue: boolean;
  email: string;
  role: DashboardRole;
  receiverId: number;
  createdAt: number;
  lastSeenAt: number;
}

export async function insertSession(db: Kysely<DB>, tokenHash: string, userId: string, at: number, secondFactorDue = false): Promise<void> {
  await db.insertInto('dashboard_sessions').values({ token_hash: tokenHash, user_id: userId, created_at: at, last_seen_at: at, second_factor_due: secondFactorDue ? 1 : 0 }).execute();
}

export async function findSession(db: Kysely<DB>, tokenHash: string): Promise<SessionRow | undefined> {
  const row = await db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('dashboard_users as u', 'u.user_id', 's.user_id')
    .select(['s.token_hash', 's.user_id', 's.second_factor_due', 'u.email', 'u.role', 'u.receiver_id', 's.created_at', 's.last_seen_at'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row && { tokenHash: row.token_hash, userId: row.user_id, secondFactorDue: Number(row.second_factor_due) === 1, email: row.email, role: row.role, receiverId: Number(row.receiver_id), createdAt: Number(row.created_at), lastSeenAt: Number(row.last_seen_at) };
}

export async function touchSession(db: Kysely<DB>, tokenHash: string, at: number): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Kysely<DB>, tokenHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteSessionsOfUser(db: Kysely<DB>, userId: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('user_id', '=', userId).execute();
}
