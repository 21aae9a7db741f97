// Identifier formats of the provider: 12-char payment ids, 64-hex notification tokens, 40-hex
// receiver secrets, UUID-shaped API keys and 6-digit receiver ids. Randomness comes in as an argument.

export type RandomBytes = (size: number) => Uint8Array;

const PAYMENT_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** Unbiased characters from `alphabet`: bytes that would skew the distribution are skipped. */
function randomString(random: RandomBytes, alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of random(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newPaymentId(random: RandomBytes): string {
  return randomString(random, PAYMENT_ID_ALPHABET, 12);
}

/**
 * 64 lowercase hex: the creation time in milliseconds (12 hex digits), then 208 random bits. The
 * tokens of a database are indexed to be found again, and random keys would land each insert on
 * another page of that index (a page written to the WAL per payment); tokens that grow with time
 * are appended side by side. The time they reveal is no secret from the merchant who receives them,
 * and 208 bits leave them as unguessable as ever.
 */
export function newNotificationToken(random: RandomBytes, createdAt: number): string {
  return Math.trunc(createdAt).toString(16).padStart(12, '0').slice(-12) + hex(random(26));
}

export function newReceiverSecret(random: RandomBytes): string {
  return hex(random(20));
}

export function newUuid(random: RandomBytes): string {
  const b = random(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return uuidLayout(hex(b));
}

function uuidLayout(h: string): string {
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * An API key in the provider's shape, a UUID's 36 characters, but every one of its 128 bits random:
 * a version 4 UUID fixes six of them, and a credential needs 128 bits of a CSPRNG (ASVS 11.5.1).
 * Merchants' code and SDKs pass the key along as text and UUID_PATTERN still matches it.
 */
export function newApiKey(random: RandomBytes): string {
  return uuidLayout(hex(random(16)));
}

export function newReceiverId(random: RandomBytes): number {
  return 100_000 + (Number(randomString(random, '0123456789', 6)) % 900_000);
}

export const PAYMENT_ID_PATTERN = /^[a-z0-9]{12}$/;

/** What newReceiverSecret and newReceiverId make: the provider's 40 lower-case hex digits, six digits. */
export const RECEIVER_SECRET_PATTERN = /^[0-9a-f]{40}$/;
export const RECEIVER_ID_PATTERN = /^[1-9]\d{5}$/;

/** The ids newUuid makes: attempts, subscriptions, signing sessions. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// No 0/O, 1/l/I: a generated password is read off a terminal and typed.
const PASSWORD_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A generated dashboard password: 22 characters of 57, 128 bits (ASVS 11.5.1). */
export function newPassword(random: RandomBytes): string {
  return randomString(random, PASSWORD_ALPHABET, 22);
}

/** A dashboard session's token, kept only in the browser's cookie (the database holds its hash). */
export function newSessionToken(random: RandomBytes): string {
  return Buffer.from(random(32)).toString('base64url');
}
