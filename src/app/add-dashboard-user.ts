// Gives a person a sign-in to an account's dashboard: `quipu users add`, `quipu merchants create`
// and the demo account. The password is generated unless given (fixed demo credentials), and is
// returned once; only its hash is kept.
import type { Kysely } from 'kysely';
import type { DashboardRole } from '../domain/dashboard-roles.js';
import { fieldError, notFound } from '../domain/errors.js';
import { isEmail } from '../domain/formats.js';
import { newPassword, newUuid } from '../domain/ids.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../domain/password-hash.js';
import { findMerchantRow } from '../store/merchants.js';
import type { DB } from '../store/schema.js';
import { insertUser } from '../store/users.js';
import type { AppContext } from './context.js';

export interface DashboardCredentials {
  email: string;
  password: string;
}

/** Emails are compared in lower case: one person, one user, however they type it. */
export const normalEmail = (email: string) => email.trim().toLowerCase();

function checkedEmail(email: string): string {
  const normal = normalEmail(email);
  if (!isEmail(normal)) throw fieldError('email', 'must be an email address');
  return normal;
}

/** A password (given or generated) and its hash. scrypt takes tens of milliseconds: callers hash before their transaction. */
export async function passwordAndHash(ctx: AppContext, given?: string): Promise<{ password: string; hash: string }> {
  if (given !== undefined && given.length < MIN_PASSWORD_LENGTH) throw fieldError('password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const password = given ?? newPassword(ctx.random);
  return { password, hash: await hashPassword(password, ctx.random(16)) };
}

/**
 * Writes the user in `db` (the caller's transaction); the account must exist. Returns the email as
 * stored. An account's first people (its creation, the demo account) are its owners.
 */
export async function insertDashboardUser(ctx: AppContext, db: Kysely<DB>, receiverId: number, email: string, passwordHash: string, role: DashboardRole = 'owner'): Promise<string> {
  const normal = checkedEmail(email);
  const now = ctx.clock.now().getTime();
  if (!(await insertUser(db, { user_id: newUuid(ctx.random), receiver_id: receiverId, email: normal, password_hash: passwordHash, role, created_at: now, updated_at: now }))) {
    throw fieldError('email', 'is already a dashboard user');
  }
  return normal;
}

export async function addDashboardUser(ctx: AppContext, receiverId: number, input: { email: string; password?: string; role?: DashboardRole }): Promise<DashboardCredentials> {
  const email = checkedEmail(input.email);
  if (!(await findMerchantRow(ctx.db, receiverId))) throw notFound('Merchant');
  const { password, hash } = await passwordAndHash(ctx, input.password);
  await insertDashboardUser(ctx, ctx.db, receiverId, email, hash, input.role);
  return { email, password };
}
