// The installation's own rules for every URL it sends notifications to, whoever the account:
// plain http only where the operator allows it (a production installation sends over TLS unless
// told otherwise), and, when the operator names them, only the hosts of an allowlist. Checked when
// a URL is given (a 400 naming its field) and again before each attempt, so a URL stored before
// the rules changed is not sent to either.
import { isIP } from 'node:net';

export interface DestinationRules {
  /** NOTIFY_URL_ALLOW_HTTP: plain http URLs may be notified. */
  httpAllowed: boolean;
  /** NOTIFY_URL_ALLOWED_HOSTS: host names (`*.example.com` for any name under it) and addresses; empty, any host. */
  allowedHosts: readonly string[];
}

const NAME_PATTERN = /^(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/** One allowlist entry as the host of a URL compares, or undefined when it is not a host name, a wildcard name or an address. */
export function hostPattern(entry: string): string | undefined {
  const bare = entry.trim().toLowerCase().replace(/\.$/, '');
  const unbracketed = bare.startsWith('[') && bare.endsWith(']') ? bare.slice(1, -1) : bare;
  if (isIP(unbracketed) !== 0) return unbracketed;
  return NAME_PATTERN.test(bare) ? bare : undefined;
}

/** `*.example.com` takes every name that ends in `.example.com`, not `example.com` itself; other entries take their host alone. */
export function hostAllowed(hostname: string, patterns: readonly string[]): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  return patterns.some((pattern) => (pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern));
}

export const HTTPS_ONLY = 'must be an https URL: this installation sends notifications over TLS only';
export const NOT_ALLOWED = "names a host this installation's operator does not allow notifications to";

/** Why the installation's rules refuse `url` (an absolute http or https URL), or undefined. */
export function destinationRuleProblem(url: string, rules: DestinationRules): string | undefined {
  const parsed = new URL(url);
  if (parsed.protocol === 'http:' && !rules.httpAllowed) return HTTPS_ONLY;
  if (rules.allowedHosts.length > 0 && !hostAllowed(parsed.hostname, rules.allowedHosts)) return NOT_ALLOWED;
  return undefined;
}
