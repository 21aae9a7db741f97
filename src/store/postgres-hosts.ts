// A PostgreSQL DATABASE_URL that names several servers, as libpq writes it: a primary and its
// standbys, `postgres://user:password@db1:5432,db2:5432/quipu?target_session_attrs=read-write`.
// node-postgres reads one host only, so Quipu takes the list apart here and connects to whichever
// host accepts writes (primary-locator.ts); the other parameters go to node-postgres as they were.

export interface PostgresHost {
  host: string;
  port: number;
}

export interface PostgresTarget {
  /** The URL with only the first host and without target_session_attrs: what node-postgres parses. */
  url: string;
  hosts: PostgresHost[];
  /** New connections must go to a host that accepts writes (several hosts, or target_session_attrs=read-write). */
  readWrite: boolean;
}

const DEFAULT_PORT = 5432;
const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/s;
const HOST_PORT = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/;

function parseHost(text: string): PostgresHost {
  const match = HOST_PORT.exec(text);
  const port = match?.[2] === undefined ? DEFAULT_PORT : Number(match[2]);
  if (!match || !match[1] || port < 1 || port > 65535) throw new Error(`DATABASE_URL: "${text}" is not a host or host:port`);
  return { host: decodeURIComponent(match[1].replace(/^\[(.*)\]$/, '$1')), port };
}

/** `host:port`, as the URL writes it and as a log line or an error names it. */
export const hostName = ({ host, port }: PostgresHost) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * The hosts of a PostgreSQL URL, in order. Quipu writes, so with several hosts it always wants the
 * one that accepts writes: target_session_attrs may say so (read-write), and may say nothing else.
 */
export function postgresTarget(raw: string): PostgresTarget {
  const match = URL_PARTS.exec(raw);
  if (!match) throw new Error('DATABASE_URL: not a postgres:// URL');
  const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
  const at = authority.lastIndexOf('@');
  const userInfo = authority.slice(0, at + 1);
  const hostList = authority.slice(at + 1);
  const query = rest.indexOf('?');
  const parameters = new URLSearchParams(query < 0 ? '' : rest.slice(query + 1));
  const attrs = parameters.get('target_session_attrs');
  if (attrs !== null && attrs !== 'read-write') {
    throw new Error(`DATABASE_URL: target_session_attrs must be "read-write" (Quipu writes to the database) or absent, got "${attrs}"`);
  }
  if (!hostList.includes(',') && attrs === null) return { url: raw, hosts: hostList ? [parseHost(hostList)] : [], readWrite: false };
  const hosts = hostList.split(',').map(parseHost);
  parameters.delete('target_session_attrs');
  const path = query < 0 ? rest : rest.slice(0, query);
  const kept = parameters.toString();
  return { url: `${scheme}${userInfo}${hostName(hosts[0]!)}${path}${kept ? `?${kept}` : ''}`, hosts, readWrite: true };
}

/** The URL without its password, for what a command prints: one or several hosts alike. */
export function withoutPassword(raw: string): string {
  const match = URL_PARTS.exec(raw);
  if (!match) return raw;
  const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
  const at = authority.lastIndexOf('@');
  if (at < 0) return raw;
  const user = authority.slice(0, at).split(':')[0];
  return `${scheme}${user}@${authority.slice(at + 1)}${rest}`;
}

/**
 * The user and password a PostgreSQL URL signs in with, as node-postgres reads them: from the user
 * information, percent-decoded, or from `user` and `password` parameters, which take precedence;
 * undefined where it names none.
 */
export function urlCredentials(raw: string): { user: string | undefined; password: string | undefined } {
  const match = URL_PARTS.exec(raw);
  if (!match) throw new Error('not a postgres:// URL');
  const [, , authority, rest] = match as unknown as [string, string, string, string];
  const userInfo = authority.slice(0, Math.max(authority.lastIndexOf('@'), 0));
  const colon = userInfo.indexOf(':');
  const user = colon < 0 ? userInfo : userInfo.slice(0, colon);
  const query = rest.indexOf('?');
  const parameters = new URLSearchParams(query < 0 ? '' : rest.slice(query + 1).replace(/#.*$/s, ''));
  return {
    user: parameters.get('user') ?? (user ? decodeURIComponent(user) : undefined),
    password: parameters.get('password') ?? (colon < 0 ? undefined : decodeURIComponent(userInfo.slice(colon + 1))),
  };
}
