// Two-factor sign-in to the dashboard: a TOTP code (RFC 6238: SHA-1, 6 digits, 30-second steps, the
// authenticator apps' defaults) after the password, or one of ten single-use recovery codes. A code
// is good for one sign-in: the step it matched is remembered and no earlier or equal step is taken
// again, so a code read over a shoulder cannot be replayed.
import { hash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { RandomBytes } from './ids.js';

export const TWO_FACTOR_MODES = ['optional', 'required'] as const;
export type TwoFactorMode = (typeof TWO_FACTOR_MODES)[number];

const PERIOD_S = 30;
const DIGITS = 6;
/** One step either side: a phone's clock a little off, or a code typed as it turned. */
const WINDOW = 1;
const SECRET_BYTES = 20;
const ISSUER = 'Quipu';

/** Between the password and the code: a session that opens no page, and ends soon. */
export const PENDING_SECOND_FACTOR_MS = 5 * 60_000;

export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32: 32 symbols, so a byte's low five bits pick one without bias; no i, l, o or u to misread. */
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function totp(secretBase32: string, email: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_S, secret: Secret.fromBase32(secretBase32) });
}

export interface Enrolment {
  /** Base32, as authenticator apps take it typed in. */
  secret: string;
  /** `otpauth://totp/...`, as they take it from a QR code. */
  uri: string;
}

export function newEnrolment(random: RandomBytes, email: string): Enrolment {
  const secret = new Secret({ buffer: Uint8Array.from(random(SECRET_BYTES)).buffer }).base32;
  return { secret, uri: totp(secret, email).toString() };
}

/** The step a code matches, if it is one of the secret's codes now and newer than the last step used. */
export function matchingStep(secretBase32: string, code: string, nowMs: number, lastStep: number | null): number | undefined {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totp(secretBase32, '').validate({ token, timestamp: nowMs, window: WINDOW });
  if (delta === null) return undefined;
  const step = Math.floor(nowMs / (PERIOD_S * 1000)) + delta;
  return lastStep !== null && step <= lastStep ? undefined : step;
}

/** Letters and digits of a recovery code: 24 × 5 bits = 120, past the 112 bits ASVS 6.5.2 asks of a lookup secret. */
const RECOVERY_CODE_LENGTH = 24;

/** Ten codes of 24 letters and digits (120 bits each), shown once in groups of six: `xxxxxx-xxxxxx-xxxxxx-xxxxxx`. */
export function newRecoveryCodes(random: RandomBytes): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = [...random(RECOVERY_CODE_LENGTH)].map((byte) => RECOVERY_ALPHABET[byte & 31]).join('');
    return chars.match(/.{6}/g)!.join('-');
  });
}

/**
 * What is stored of a recovery code: a hash salted with its user's id, however the code is typed
 * (case, dashes, spaces). 120 random bits need no slow hash to resist guessing; the salt makes each
 * user's hashes their own, so one table of precomputed hashes serves no two users.
 */
export function recoveryCodeHash(userId: string, code: string): string {
  return hash('sha256', `quipu recovery code\n${userId}\n${code.toLowerCase().replace(/[\s-]/g, '')}`, 'hex');
}

/** Whether the text someone typed is shaped like a recovery code rather than a TOTP code. */
export const looksLikeRecoveryCode = (code: string) => /[a-z-]/i.test(code);
