// Dashboard sessions, found by the hash of the cookie's token. A disabled user's sessions are not
// found, whatever is left of them.
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
  /** Set while the user's password is a generated one, to be replaced before anything else. */
  passwordExpiresAt: number | null;
}

/** Where a session was opened from, as shown to its user. */
export interface SessionOrigin {
  address: string | null;
  userAgent: string | null;
}

export interface OwnSessionRow extends SessionOrigin {
  tokenHash: string;
  secondFactorDue: boolean;
  createdAt: number;
  lastSeenAt: number;
}

export async function insertSession(
  db: Kysely<DB>,
  tokenHash: string,
  userId: string,
  at: number,
  origin: SessionOrigin,
  secondFactorDue = false,
): Promise<void> {
  await db
    .insertInto('dashboard_sessions')
    .values({
      token_hash: tokenHash,
      user_id: userId,
      created_at: at,
      last_seen_at: at,
      second_factor_due: secondFactorDue ? 1 : 0,
      address: origin.address,
      user_agent: origin.userAgent,
    })
    .execute();
}

export async function findSession(db: Kysely<DB>, tokenHash: string): Promise<SessionRow | undefined> {
  const row = await db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('dashboard_users as u', 'u.user_id', 's.user_id')
    .select([
      's.token_hash',
      's.user_id',
      's.second_factor_due',
      'u.email',
      'u.role',
      'u.receiver_id',
      's.created_at',
      's.last_seen_at',
      'u.password_expires_at',
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
  return (
    row && {
      tokenHash: row.token_hash,
      userId: row.user_id,
      secondFactorDue: Number(row.second_factor_due) === 1,
      email: row.email,
      role: row.role,
      receiverId: Number(row.receiver_id),
      createdAt: Number(row.created_at),
      lastSeenAt: Number(row.last_seen_at),
      passwordExpiresAt: row.password_expires_at === null ? null : Number(row.password_expires_at),
    }
  );
}

/** Every session a user holds, newest first, ended ones included until they are next looked at. */
export async function sessionsOfUser(db: Kysely<DB>, userId: string): Promise<OwnSessionRow[]> {
  const rows = await db
    .selectFrom('dashboard_sessions')
    .select(['token_hash', 'second_factor_due', 'created_at', 'last_seen_at', 'address', 'user_agent'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map((row) => ({
    tokenHash: row.token_hash,
    secondFactorDue: Number(row.second_factor_due) === 1,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    address: row.address,
    userAgent: row.user_agent,
  }));
}

export async function touchSession(db: Kysely<DB>, tokenHash: string, at: number): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Kysely<DB>, tokenHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Ends a user's sessions, but the one named by `except` (the browser asking). Returns how many ended. */
export async function deleteSessionsOfUser(db: Kysely<DB>, userId: string, except?: string): Promise<number> {
  let query = db.deleteFrom('dashboard_sessions').where('user_id', '=', userId);
  if (except !== undefined) query = query.where('token_hash', '!=', except);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

/** Ends every session of every user. Returns how many ended. */
export async function deleteAllSessions(db: Kysely<DB>): Promise<number> {
  return Number((await db.deleteFrom('dashboard_sessions').executeTakeFirst()).numDeletedRows);
}
