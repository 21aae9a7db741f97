// The people who sign in to an account's dashboard. Emails are stored in lower case, so the unique
// index makes them unique whatever the case they were typed in.
import type { Insertable, Kysely } from 'kysely';
import type { DashboardRole } from '../domain/dashboard-roles.js';
import type { DashboardUserRow, DashboardUsersTable, DB } from './schema.js';
import { isUniqueViolation } from './transaction.js';

/** False when the email is taken. */
export async function insertUser(db: Kysely<DB>, row: Insertable<DashboardUsersTable>): Promise<boolean> {
  try {
    await db.insertInto('dashboard_users').values(row).execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

export async function findUserByEmail(db: Kysely<DB>, email: string): Promise<DashboardUserRow | undefined> {
  return db.selectFrom('dashboard_users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function usersOf(db: Kysely<DB>, receiverId: number): Promise<DashboardUserRow[]> {
  return db.selectFrom('dashboard_users').selectAll().where('receiver_id', '=', receiverId).orderBy('email').execute();
}

/** A new password: `expiresAt` is set for one Quipu generated (domain/dashboard-session.ts), null for one the user chose. */
export async function setPasswordHash(db: Kysely<DB>, userId: string, passwordHash: string, at: number, expiresAt: number | null): Promise<void> {
  await db
    .updateTable('dashboard_users')
    .set({ password_hash: passwordHash, password_expires_at: expiresAt, updated_at: at })
    .where('user_id', '=', userId)
    .execute();
}

/** The same password hashed again at a higher cost, unless the password changed meanwhile. */
export async function upgradePasswordHash(db: Kysely<DB>, userId: string, weaker: string, stronger: string): Promise<void> {
  await db.updateTable('dashboard_users').set({ password_hash: stronger }).where('user_id', '=', userId).where('password_hash', '=', weaker).execute();
}

/** Disables (an instant) or enables (null) a user. */
export async function setDisabled(db: Kysely<DB>, userId: string, disabledAt: number | null, at: number): Promise<void> {
  await db.updateTable('dashboard_users').set({ disabled_at: disabledAt, updated_at: at }).where('user_id', '=', userId).execute();
}

/** Removes a user with their recovery codes and sessions; the audit log keeps their email. */
export async function deleteUser(db: Kysely<DB>, userId: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('user_id', '=', userId).execute();
  await db.deleteFrom('dashboard_recovery_codes').where('user_id', '=', userId).execute();
  await db.deleteFrom('dashboard_users').where('user_id', '=', userId).execute();
}

export async function setRole(db: Kysely<DB>, userId: string, role: DashboardRole, at: number): Promise<void> {
  await db.updateTable('dashboard_users').set({ role, updated_at: at }).where('user_id', '=', userId).execute();
}

export async function findUserById(db: Kysely<DB>, userId: string): Promise<DashboardUserRow | undefined> {
  return db.selectFrom('dashboard_users').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** A new second factor (or none), and with it no step used yet. */
export async function setTotpSecret(db: Kysely<DB>, userId: string, secretEnc: string | null, at: number): Promise<void> {
  await db.updateTable('dashboard_users').set({ totp_secret_enc: secretEnc, totp_last_step: null, updated_at: at }).where('user_id', '=', userId).execute();
}

/** Records the step a code was accepted at, unless that step or a later one already was: false then (a replay, or a race lost). */
export async function useTotpStep(db: Kysely<DB>, userId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('dashboard_users')
    .set({ totp_last_step: step })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
