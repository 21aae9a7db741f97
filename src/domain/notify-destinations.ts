// The installation's own rules for every URL it sends notifications to, whoever the account:
// plain http only where the operator allows it (a production installation sends over TLS unless
// told otherwise), when the operator names them only the hosts of an allowlist, and, where the
// operator asks for it (a production installation unless told otherwise), only the hosts each
// account registered itself, as the peers' registered webhook endpoints. Checked when a URL is
// given (a 400 naming its field) and again before each attempt, so a URL stored before the rules
// (or the account's hosts) changed is not sent to either.
import { isIP } from 'node:net';

export interface DestinationRules {
  /** NOTIFY_URL_ALLOW_HTTP: plain http URLs may be notified. */
  httpAllowed: boolean;
  /** NOTIFY_URL_ALLOWED_HOSTS: host names (`*.example.com` for any name under it) and addresses; empty, any host. */
  allowedHosts: readonly string[];
  /** NOTIFY_URL_ACCOUNT_HOSTS: each account is notified only at the hosts it registered (registeredHosts). */
  accountHosts: boolean;
  /** NOTIFY_URL_ALLOW_LINK_LOCAL: accounts that may notify private addresses may notify link-local ones too (network-address.ts). */
  linkLocalAllowed: boolean;
}

const NAME_PATTERN = /^(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/** One allowlist entry as the host of a URL compares, or undefined when it is not a host name, a wildcard name or an address. */
export function hostPattern(entry: string): string | undefined {
  const bare = entry.trim().toLowerCase().replace(/\.$/, '');
  const unbracketed = bare.startsWith('[') && bare.endsWith(']') ? bare.slice(1, -1) : bare;
  if (isIP(unbracketed) !== 0) return unbracketed;
  return NAME_PATTERN.test(bare) ? bare : undefined;
}

/** A URL's host as patterns compare it: lower case, no final dot, an IPv6 address without brackets. */
const comparedHost = (hostname: string) =>
  hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');

/** `*.example.com` takes every name that ends in `.example.com`, not `example.com` itself; other entries take their host alone. */
export function hostAllowed(hostname: string, patterns: readonly string[]): boolean {
  const host = comparedHost(hostname);
  return patterns.some((pattern) => (pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern));
}

/** How many notification hosts an account may register: wildcards cover the rest, and the list is read with every account. */
export const MAX_NOTIFY_HOSTS = 50;

/**
 * An account's notification hosts as given (commas or white space between entries): the patterns
 * of its entries, each once, and the first entry that is not a host name, a `*.name` wildcard or
 * an address, if any.
 */
export function notifyHostList(text: string): { hosts: string[]; bad?: string } {
  const hosts: string[] = [];
  for (const entry of text.split(/[,\s]+/).filter((part) => part !== '')) {
    const pattern = hostPattern(entry);
    if (pattern === undefined) return { hosts, bad: entry };
    if (!hosts.includes(pattern)) hosts.push(pattern);
  }
  return { hosts };
}

/** Why an account's notification hosts as given are refused, or undefined. */
export function notifyHostsProblem(list: { hosts: readonly string[]; bad?: string }): string | undefined {
  if (list.bad !== undefined) return `${list.bad} is not a host name, a *.name wildcard or an address`;
  return list.hosts.length > MAX_NOTIFY_HOSTS ? `may list at most ${MAX_NOTIFY_HOSTS} hosts (a *.name wildcard takes every name under it)` : undefined;
}

/** Worked out once per account record (records are replaced, never changed, when an account's URL or hosts change): every create asks. */
const registeredOf = new WeakMap<object, readonly string[]>();

/**
 * The hosts an account may be notified at when NOTIFY_URL_ACCOUNT_HOSTS is on: its notification
 * hosts, and the host of its own default notify_url, since setting that URL is itself a
 * registration by the account's owner.
 */
export function registeredHosts(account: { readonly notifyHosts: readonly string[]; readonly notifyUrl: string | null }): readonly string[] {
  let hosts = registeredOf.get(account);
  if (hosts === undefined) {
    const own = account.notifyUrl !== null && URL.canParse(account.notifyUrl) ? [comparedHost(new URL(account.notifyUrl).hostname)] : [];
    hosts = [...account.notifyHosts, ...own];
    registeredOf.set(account, hosts);
  }
  return hosts;
}

export const HTTPS_ONLY = 'must be an https URL: this installation sends notifications over TLS only';
export const NOT_ALLOWED = "names a host this installation's operator does not allow notifications to";
export const NOT_REGISTERED =
  "names a host this account has not registered for notifications: add it to the notification hosts in the dashboard's Settings (the host of the account's notify_url counts as registered)";

/**
 * Why the installation's rules refuse `url` (an absolute http or https URL) for an account that
 * `registered` these hosts (registeredHosts), or undefined. The operator's allowlist and the
 * account's hosts both apply when both are set.
 */
export function destinationRuleProblem(url: string | URL, rules: DestinationRules & { registered: readonly string[] }): string | undefined {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  if (parsed.protocol === 'http:' && !rules.httpAllowed) return HTTPS_ONLY;
  if (rules.allowedHosts.length > 0 && !hostAllowed(parsed.hostname, rules.allowedHosts)) return NOT_ALLOWED;
  if (rules.accountHosts && !hostAllowed(parsed.hostname, rules.registered)) return NOT_REGISTERED;
  return undefined;
}
