// Which network an IP address belongs to, so that notifications can never be aimed at the
// service's own machine or internal network (server-side request forgery). Only developer-mode
// accounts on a sandbox installation may notify such addresses: a receiver on localhost is their
// point. Even they reach no link-local address (169.254.0.0/16, fe80::/10), where clouds answer
// with the machine's metadata and credentials, unless the operator allows it
// (NOTIFY_URL_ALLOW_LINK_LOCAL).
import { isIPv4, isIPv6 } from 'node:net';
import type { Merchant } from './merchant.js';
import { type DestinationRules, destinationRuleProblem, registeredHosts } from './notify-destinations.js';

export type AddressScope = 'public' | 'private' | 'loopback' | 'link-local' | 'unspecified' | 'multicast' | 'reserved';

type Range4 = [base: number, bits: number, scope: AddressScope];

const ip4 = (text: string): number => text.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);

const RANGES_4: readonly Range4[] = [
  [ip4('0.0.0.0'), 8, 'unspecified'],
  [ip4('10.0.0.0'), 8, 'private'],
  [ip4('100.64.0.0'), 10, 'private'], // carrier-grade NAT
  [ip4('127.0.0.0'), 8, 'loopback'],
  [ip4('169.254.0.0'), 16, 'link-local'],
  [ip4('172.16.0.0'), 12, 'private'],
  [ip4('192.0.0.0'), 24, 'reserved'],
  [ip4('192.0.2.0'), 24, 'reserved'],
  [ip4('192.168.0.0'), 16, 'private'],
  [ip4('198.18.0.0'), 15, 'private'], // benchmarking networks
  [ip4('198.51.100.0'), 24, 'reserved'],
  [ip4('203.0.113.0'), 24, 'reserved'],
  [ip4('224.0.0.0'), 4, 'multicast'],
  [ip4('240.0.0.0'), 4, 'reserved'],
];

function scope4(value: number): AddressScope {
  for (const [base, bits, scope] of RANGES_4) {
    const size = 2 ** (32 - bits);
    if (value >= base && value < base + size) return scope;
  }
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function groups6(text: string): number[] {
  let address = text;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const v4 = ip4(dotted[1]!);
    address = `${address.slice(0, dotted.index)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const [head, tail] = address.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  return tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function scope6(g: number[]): AddressScope {
  const v4At = (i: number) => g[i]! * 65536 + g[i + 1]!;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && g[7] === 1) return 'loopback';
  if (zeros(0, 5) && g[5] === 0xffff) return scope4(v4At(6)); // IPv4-mapped
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return scope4(v4At(6)); // NAT64
  if (g[0] === 0x2002) return scope4(v4At(1)); // 6to4
  if (zeros(0, 6)) return 'reserved'; // IPv4-compatible, deprecated
  if ((g[0]! & 0xfe00) === 0xfc00 || (g[0]! & 0xffc0) === 0xfec0) return 'private'; // unique local, old site-local
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'reserved'; // documentation
  if (g[0] === 0x100 && zeros(1, 4)) return 'reserved'; // discard prefix
  return 'public';
}

/** The scope of an IP address literal, or undefined if `address` is not one. */
export function addressScope(address: string): AddressScope | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return scope4(ip4(bare));
  if (isIPv6(bare)) return scope6(groups6(bare));
  return undefined;
}

/** A host name or address that is this machine: `localhost` or a loopback address. */
export const isThisMachine = (host: string) => host.toLowerCase() === 'localhost' || addressScope(host) === 'loopback';

/**
 * Why a production account may not use this URL host without even resolving it: an address
 * literal outside the public internet, or a `localhost` name (RFC 6761 reserves it for loopback).
 * Undefined when the host is a public address or a name that must be resolved to judge.
 */
export function nonPublicHostReason(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'names the loopback interface (localhost)';
  const scope = addressScope(host);
  return scope === undefined || scope === 'public' ? undefined : `is a ${scope} address`;
}

/**
 * Whether an account may notify non-public addresses: a developer-mode account, on an installation
 * with the sandbox on. A production installation (SANDBOX=false) refuses them for every account,
 * or any developer-mode account opened there could reach the installation's own network.
 */
export function mayNotifyPrivateAddresses(developer: boolean, sandbox: boolean): boolean {
  return developer && sandbox;
}

/**
 * The addresses a notification may reach: the public internet only; also this machine and private
 * networks, but no link-local address; or every address.
 */
export type AddressReach = 'public' | 'private' | 'any';

export function reachOf(policy: { privateAllowed: boolean; linkLocalAllowed: boolean }): AddressReach {
  if (!policy.privateAllowed) return 'public';
  return policy.linkLocalAllowed ? 'any' : 'private';
}

/** Whether an address of `scope` lies beyond `reach`. */
export function beyondReach(scope: AddressScope, reach: AddressReach): boolean {
  if (reach === 'public') return scope !== 'public';
  return reach === 'private' && scope === 'link-local';
}

/** Who may notify only the public internet, and who no link-local address, in the words of every refusal. */
export const PUBLIC_ONLY = 'only public internet addresses may be notified (production accounts, and every account when SANDBOX=false)';
export const NO_LINK_LOCAL = 'link-local addresses are not notified unless the operator sets NOTIFY_URL_ALLOW_LINK_LOCAL=true';

export const reachRule = (reach: AddressReach) => (reach === 'public' ? PUBLIC_ONLY : NO_LINK_LOCAL);

/**
 * Why a URL host is beyond `reach` without even resolving it: an address literal beyond it, or a
 * `localhost` name for the public internet. Undefined when it is not, or when it is a name that
 * must be resolved to judge.
 */
export function hostBeyondReach(hostname: string, reach: AddressReach): string | undefined {
  if (reach === 'public') return nonPublicHostReason(hostname);
  const scope = addressScope(hostname);
  return scope !== undefined && beyondReach(scope, reach) ? `is a ${scope} address` : undefined;
}

/** Where an account may send notifications: its own leave for private addresses, the hosts it registered, and the installation's rules. */
export interface NotifyPolicy extends DestinationRules {
  privateAllowed: boolean;
  /** The account's registered hosts (registeredHosts), which bind it when `accountHosts` is on. */
  registered: readonly string[];
}

/** What of an account decides where it may be notified. */
export type NotifyingAccount = Pick<Merchant, 'developer' | 'notifyHosts' | 'notifyUrl'>;

export function notifyPolicy(account: NotifyingAccount, installation: { sandbox: boolean; notifyDestinations: DestinationRules }): NotifyPolicy {
  // Named member by member: a spread of the rules into a literal with more members took V8's slow
  // path, about 2 µs of every create (CPU profile of a production create, docs/benchmarks.md).
  const { httpAllowed, allowedHosts, accountHosts, linkLocalAllowed } = installation.notifyDestinations;
  return {
    httpAllowed,
    allowedHosts,
    accountHosts,
    linkLocalAllowed,
    privateAllowed: mayNotifyPrivateAddresses(account.developer, installation.sandbox),
    registered: registeredHosts(account),
  };
}

/**
 * Why an account may not be notified at `url`: only accounts that may notify private addresses
 * (mayNotifyPrivateAddresses) may use localhost, and a link-local address only where the operator
 * allows it; the others only notify the public internet; and
 * every account keeps to the installation's rules (https, the allowlist, the hosts it registered).
 * One rule for a payment's notify_url and for an account's default.
 */
export function notifyUrlProblem(url: string, policy: NotifyPolicy): string | undefined {
  const reach = reachOf(policy);
  const parsed = new URL(url);
  const reason = hostBeyondReach(parsed.hostname, reach);
  return reason ? `${reason}; ${reachRule(reach)}` : destinationRuleProblem(parsed, policy);
}
