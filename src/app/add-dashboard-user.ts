// Gives a person a sign-in to an account's dashboard: `quipu users add`, `quipu merchants create`
// and the demo account. The password is generated unless given (fixed demo credentials), and is
// returned once; only its hash is kept. A generated password is an initial one: it expires, and
// the first sign-in with it leads only to choosing one's own (docs/dashboard.md).
import type { Kysely } from 'kysely';
import type { DashboardRole } from '../domain/dashboard-roles.js';
import { INITIAL_PASSWORD_MS } from '../domain/dashboard-session.js';
import { fieldError, notFound } from '../domain/errors.js';
import { isEmail } from '../domain/formats.js';
import { newPassword, newUuid } from '../domain/ids.js';
import { hashPassword, MIN_HASH_COST } from '../domain/password-hash.js';
import { PASSWORD_PROBLEMS, type PasswordContext, passwordProblem } from '../domain/password-policy.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { findMerchantRow } from '../store/merchants.js';
import type { DB } from '../store/schema.js';
import { insertUser } from '../store/users.js';
import type { AppContext } from './context.js';

export interface DashboardCredentials {
  email: string;
  password: string;
}

/** A password as it is handed out once, and what is stored of it. */
export interface NewPassword {
  password: string;
  hash: string;
  /** When a generated password stops signing in; null for a given one. */
  expiresAt: number | null;
}

/** Emails are compared in lower case: one person, one user, however they type it. */
export const normalEmail = (email: string) => email.trim().toLowerCase();

function checkedEmail(email: string): string {
  const normal = normalEmail(email);
  if (!isEmail(normal)) throw fieldError('email', 'must be an email address');
  return normal;
}

/**
 * A password (given or generated) and its hash. A given one must pass the password rules
 * (domain/password-policy.ts); a generated one is an initial password (INITIAL_PASSWORD_MS).
 * Developer mode's demo user is exempt from both: its password exists to be known in advance by
 * test suites and is printed at start, and its account moves DemoBank's test money only.
 * scrypt takes hundreds of milliseconds: callers hash before their transaction.
 */
export async function passwordAndHash(ctx: AppContext, input: { given?: string; context: PasswordContext; developerDemo?: boolean }): Promise<NewPassword> {
  const { given } = input;
  if (given !== undefined && !input.developerDemo) {
    const problem = passwordProblem(given, input.context);
    if (problem) throw fieldError('password', PASSWORD_PROBLEMS[problem]);
  }
  const password = given ?? newPassword(ctx.random);
  const expiresAt = given !== undefined || input.developerDemo ? null : wallClockMs(ctx.clock) + INITIAL_PASSWORD_MS;
  // The demo user's hash is made at the least cost: at 17 it took most of a second of every fresh
  // start (a test suite's container starts fresh each time), and its password is no secret a
  // person chose (printed, or set in a CI's settings). Its first sign-in makes the hash again at
  // the installation's cost, as for any weaker hash.
  const cost = input.developerDemo ? MIN_HASH_COST : ctx.config.passwordHashCost;
  return { password, hash: await hashPassword(password, ctx.random(16), cost), expiresAt };
}

/**
 * Writes the user in `db` (the caller's transaction); the account must exist. Returns the email as
 * stored. An account's first people (its creation, the demo account) are its owners.
 */
export async function insertDashboardUser(
  ctx: AppContext,
  db: Kysely<DB>,
  receiverId: number,
  email: string,
  password: NewPassword,
  role: DashboardRole = 'owner',
): Promise<string> {
  const normal = checkedEmail(email);
  const now = ctx.clock.now().getTime();
  const row = {
    user_id: newUuid(ctx.random),
    receiver_id: receiverId,
    email: normal,
    password_hash: password.hash,
    password_expires_at: password.expiresAt,
    role,
    created_at: now,
    updated_at: now,
  };
  if (!(await insertUser(db, row))) throw fieldError('email', 'is already a dashboard user');
  return normal;
}

export async function addDashboardUser(
  ctx: AppContext,
  receiverId: number,
  input: { email: string; password?: string; role?: DashboardRole },
): Promise<DashboardCredentials> {
  const email = checkedEmail(input.email);
  const merchant = await findMerchantRow(ctx.db, receiverId);
  if (!merchant) throw notFound('Merchant');
  const password = await passwordAndHash(ctx, { given: input.password, context: { email, accountName: merchant.name } });
  await insertDashboardUser(ctx, ctx.db, receiverId, email, password, input.role);
  return { email, password: password.password };
}
