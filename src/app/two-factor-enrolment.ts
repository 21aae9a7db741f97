// `quipu users two-factor-enrol|two-factor-reset`: a user's second factor is set up by the
// operator, who hands them the secret (or its otpauth:// address, for a QR code) and ten recovery
// codes, shown once; only the sealed secret and the codes' salted hashes are kept. Either change ends every
// session the user has: they sign in again under it.
import { newEnrolment, newRecoveryCodes, recoveryCodeHash } from '../domain/two-factor.js';
import { notFound } from '../domain/errors.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { deleteSessionsOfUser } from '../store/dashboard-sessions.js';
import { replaceRecoveryCodes } from '../store/recovery-codes.js';
import { inTransaction } from '../store/transaction.js';
import { findUserByEmail, setTotpSecret } from '../store/users.js';
import { normalEmail } from './add-dashboard-user.js';
import type { AppContext } from './context.js';

export interface TwoFactorEnrolment {
  email: string;
  secret: string;
  otpauth_uri: string;
  recovery_codes: string[];
}

async function userOf(ctx: AppContext, email: string) {
  const user = await findUserByEmail(ctx.db, normalEmail(email));
  if (!user) throw notFound('Dashboard user');
  return user;
}

export async function enrolTwoFactor(ctx: AppContext, email: string): Promise<TwoFactorEnrolment> {
  const user = await userOf(ctx, email);
  const enrolment = newEnrolment(ctx.random, user.email);
  const codes = newRecoveryCodes(ctx.random);
  await inTransaction(ctx.db, async (trx) => {
    await setTotpSecret(trx, user.user_id, ctx.secrets.seal(enrolment.secret), wallClockMs(ctx.clock));
    await replaceRecoveryCodes(
      trx,
      user.user_id,
      codes.map((code) => recoveryCodeHash(user.user_id, code)),
    );
    await deleteSessionsOfUser(trx, user.user_id);
  });
  return { email: user.email, secret: enrolment.secret, otpauth_uri: enrolment.uri, recovery_codes: codes };
}

/** A lost phone: the user signs in with the password alone again (unless the installation requires a second factor). */
export async function resetTwoFactor(ctx: AppContext, email: string): Promise<{ email: string; two_factor: false }> {
  const user = await userOf(ctx, email);
  await inTransaction(ctx.db, async (trx) => {
    await setTotpSecret(trx, user.user_id, null, wallClockMs(ctx.clock));
    await replaceRecoveryCodes(trx, user.user_id, []);
    await deleteSessionsOfUser(trx, user.user_id);
  });
  return { email: user.email, two_factor: false };
}
