// Redirect URIs: what may be registered for a client, and how answers are added to one.
import { isRedirectUrl } from './formats.js';

export const MAX_REDIRECT_URI_LENGTH = 1024;

/**
 * A redirect URI may be registered when it is an absolute URL (https, http, or an app's own scheme;
 * never a script-running scheme) without a fragment (RFC 6749 3.1.2), at most 1024 characters.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters long`;
  if (!isRedirectUrl(uri)) return 'must be an absolute URL with a safe scheme';
  if (uri.includes('#')) return 'must not contain a fragment';
  return undefined;
}

/** The registered URI with the answer's parameters added to whatever query it already has. */
export function redirectWith(redirectUri: string, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.append(name, value);
  return url.toString();
}

/**
 * The `x-custom` header carries the custom value. Header values are visible ASCII, so `%`, control
 * characters, non-ASCII and edge spaces are percent-encoded (UTF-8): the header is the value itself
 * for plain text, and decodeURIComponent(header) always gives the value back.
 */
export function customHeaderValue(custom: string): string {
  const chars = [...custom];
  return chars
    .map((ch, i) => {
      const code = ch.codePointAt(0)!;
      const keep = (code > 0x20 && code < 0x7f && ch !== '%') || (ch === ' ' && i > 0 && i < chars.length - 1);
      return keep ? ch : [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    })
    .join('');
}
