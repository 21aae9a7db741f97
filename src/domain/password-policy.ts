// The rules a password a person chooses must pass (ASVS 6.2.4, 6.2.11): long enough, not one of the
// most used passwords, and not built on a word an attacker would try first against this user —
// Quipu's names, their email, their account's name. The common list is zxcvbn-ts's: the 49,233
// passwords seen more than ten times in Xato's corpus of ten million leaked passwords, most used
// first, shipped in the package and read offline. Quipu reaches no breached-password service, so
// this list stands in for one (docs/security.md). The list leaves out what zxcvbn finds by pattern
// (`aaaaaaaa`, `abcdefgh`, `19871987`): repeats and runs are refused here as common too. Passwords
// Quipu generates are random and are not checked.
import { createRequire } from 'node:module';
import { MAX_SIGN_IN_PASSWORD } from './sign-in-throttle.js';

/** The shortest dashboard password a person may choose (generated ones are 22 characters). */
export const MIN_PASSWORD_LENGTH = 8;

/** Words of the service itself, refused in any password (docs/security.md lists them with the user's own). */
export const SERVICE_WORDS = ['quipu', 'khipu', 'demobank'] as const;

/** A word of the user's email or account name counts from this length: shorter ones are in too many good passwords. */
const MIN_CONTEXT_WORD = 4;

export type PasswordProblem = 'too-short' | 'too-long' | 'common' | 'context';

export interface PasswordContext {
  /** The user's email. */
  email: string;
  /** The account's name. */
  accountName?: string;
}

type CommonLanguage = typeof import('@zxcvbn-ts/language-common');
let common: ReadonlySet<string> | undefined;
/**
 * The common passwords, read when a password is first checked: loading the list costs about 20 ms,
 * which every `quipu` command paid at its start when it was read with this module (config.ts).
 */
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set((createRequire(import.meta.url)('@zxcvbn-ts/language-common') as CommonLanguage).dictionary['passwords-common']);
  return common;
}

/** Letters people swap for look-alike digits and symbols, swapped back: `Qu1pu` is `quipu`. */
const LOOK_ALIKES: Readonly<Record<string, string>> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i' };

/** Lower case, accents and look-alikes undone, only letters and digits kept. */
function plain(text: string): string {
  return [...text.normalize('NFKD').toLowerCase()]
    .map((c) => LOOK_ALIKES[c] ?? c)
    .join('')
    .replace(/[^a-z0-9]/g, '');
}

/** The context-specific words refused in this user's password: Quipu's, and those of their email and account name. */
export function contextWords(context: PasswordContext): string[] {
  const [local = '', domain = ''] = context.email.toLowerCase().split('@');
  // The domain's labels but its last (the top-level domain, `cl` or `com`).
  const domainLabels = domain.split('.').slice(0, -1);
  const words = [local, ...local.split(/[._+-]/), ...domainLabels, ...(context.accountName ?? '').split(/\s+/)].map(plain);
  return [...new Set([...SERVICE_WORDS, ...words.filter((word) => word.length >= MIN_CONTEXT_WORD)])];
}

/** One to four characters repeated (`aaaaaaaa`, `abcabcabc`, `19871987`): backtracking bounded by the four lengths. */
const REPEATED = /^([\s\S]{1,4})\1+$/;

/** Every character one after or one before the last (`abcdefgh`, `87654321`). */
function isRun(text: string): boolean {
  const step = text.charCodeAt(1) - text.charCodeAt(0);
  if (step !== 1 && step !== -1) return false;
  for (let i = 2; i < text.length; i++) if (text.charCodeAt(i) - text.charCodeAt(i - 1) !== step) return false;
  return true;
}

/** Why a chosen password is refused, or undefined when it passes. */
export function passwordProblem(password: string, context: PasswordContext): PasswordProblem | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return 'too-short';
  if (password.length > MAX_SIGN_IN_PASSWORD) return 'too-long';
  const lower = password.toLowerCase();
  const bare = plain(password);
  const listed = commonPasswords();
  if (listed.has(lower) || listed.has(bare) || REPEATED.test(lower) || isRun(lower)) return 'common';
  if (contextWords(context).some((word) => bare.includes(word))) return 'context';
  return undefined;
}

/** What each refusal says, as a field error's message. */
export const PASSWORD_PROBLEMS: Readonly<Record<PasswordProblem, string>> = {
  'too-short': `must be at least ${MIN_PASSWORD_LENGTH} characters`,
  'too-long': `must be at most ${MAX_SIGN_IN_PASSWORD} characters`,
  common: 'is one of the most common passwords',
  context: "must not contain Quipu's name or a word of the user's email or account name",
};
