// Who the sandbox's door lets in: POST /sandbox/accounts, the removal of an account, its snapshots.
// With OPERATOR_TOKEN set, only that token. Without one, only a caller on the machine itself that
// talks to Quipu directly, on an installation that listens on loopback alone. The socket's peer is
// all the door can see of the caller, and a reverse proxy on the same machine is a loopback peer too,
// whoever sent it the request: so a request that carries what proxies add, or any request where the
// operator said a proxy stands in front (TRUST_PROXY), needs the token. So does one sent to a name
// other than this machine's: a proxy passing the public host on, or a web page that had its own name
// resolve to 127.0.0.1 (DNS rebinding). A proxy that adds nothing and sends Quipu's own address as
// the host cannot be told from a local caller: behind one, set OPERATOR_TOKEN (docs/security.md).
import { isThisMachine } from './network-address.js';

/** What proxies add to a request they pass on: RFC 7239's Forwarded, the customary X-Forwarded-For, RFC 9110's Via. */
export const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'via'] as const;

export interface TokenlessCaller {
  /** Where the installation listens (HOST). */
  host: string;
  /** The socket's peer address. */
  peer: string;
  /** Whether TRUST_PROXY names a proxy in front of the installation. */
  behindProxy: boolean;
  /** The request's headers, by lower-case name. */
  headers: Readonly<Record<string, unknown>>;
}

/** The name in a Host header, without its port: `localhost:3000`, `[::1]:3000`. */
function hostName(header: unknown): string {
  if (typeof header !== 'string') return '';
  return header.startsWith('[') ? header.slice(1, header.indexOf(']')) : header.replace(/:\d*$/, '');
}

/** Why a caller without the operator's token is not let in; undefined when it is. */
export function tokenlessRefusal(caller: TokenlessCaller): string | undefined {
  if (caller.behindProxy || PROXY_HEADERS.some((name) => caller.headers[name] !== undefined))
    return "This request came through a proxy: set OPERATOR_TOKEN and send it as a bearer token (without it, the sandbox's accounts answer only callers on Quipu's own machine that reach it directly)";
  if (!isThisMachine(caller.host) || !isThisMachine(caller.peer) || !isThisMachine(hostName(caller.headers.host)))
    return "Set OPERATOR_TOKEN and send it as a bearer token: without it, the sandbox's accounts answer only callers on Quipu's own machine that reach it at a loopback address or localhost, on an installation that listens on loopback alone";
  return undefined;
}
