// Whether a PostgreSQL DATABASE_URL would carry the database's traffic (its password, payers' data)
// across a network in the clear. node-postgres asks for TLS only when told to (sslmode or ssl in
// the URL, or PGSSLMODE): a production installation refuses to start until the URL says which,
// unless every host is this machine. `sslmode=disable` is such a saying: the operator's own
// judgement that the network between them is trusted.
import type { Config } from '../config.js';
import { isThisMachine } from '../domain/network-address.js';
import { postgresTarget } from './postgres-hosts.js';

const onThisMachine = (host: string) => host.startsWith('/') || isThisMachine(host);

function urlParameters(databaseUrl: string): URLSearchParams {
  const query = databaseUrl.indexOf('?');
  return new URLSearchParams(query < 0 ? '' : databaseUrl.slice(query + 1));
}

/** The hosts of `databaseUrl` reached over a network; none for SQLite. */
function networkHosts(databaseUrl: string): string[] {
  if (databaseUrl.startsWith('sqlite:')) return [];
  // A host parameter (a Unix socket's directory) takes the place of the URL's host, as libpq reads it.
  const socketOrHost = urlParameters(databaseUrl).get('host');
  const hosts = socketOrHost ? [socketOrHost] : postgresTarget(databaseUrl).hosts.map(({ host }) => host);
  return hosts.filter((host) => !onThisMachine(host));
}

/** Every host of `databaseUrl` is this machine (loopback, a Unix socket), or it is SQLite. */
export const reachesOnlyThisMachine = (databaseUrl: string) => networkHosts(databaseUrl).length === 0;

/** The hosts of `databaseUrl` reached over a network with no word on TLS; none for SQLite. */
export function databaseHostsInClear(databaseUrl: string, env: Record<string, string | undefined>): string[] {
  const parameters = urlParameters(databaseUrl);
  if (env.PGSSLMODE || parameters.has('sslmode') || parameters.has('ssl')) return [];
  return networkHosts(databaseUrl);
}

/**
 * node-postgres's own `no-verify` encrypts but takes any certificate: whoever sits on the network
 * between them can present one and read the password and every row. Over a network it is refused
 * like no word at all.
 */
function unverifiedHosts(databaseUrl: string, env: Record<string, string | undefined>): string[] {
  const mode = urlParameters(databaseUrl).get('sslmode') ?? env.PGSSLMODE;
  return mode === 'no-verify' ? networkHosts(databaseUrl) : [];
}

/** What a production installation lacks for its database's traffic, as productionProblems words it; none in developer mode. */
export function databaseTransportProblems(config: Pick<Config, 'sandbox' | 'databaseUrl'>, env: Record<string, string | undefined>): string[] {
  if (config.sandbox) return [];
  const inClear = databaseHostsInClear(config.databaseUrl, env);
  const unverified = unverifiedHosts(config.databaseUrl, env);
  return [
    ...(inClear.length > 0
      ? [`sslmode in DATABASE_URL, which reaches ${inClear.join(', ')} over the network (sslmode=verify-full; sslmode=disable only for a network you trust)`]
      : []),
    ...(unverified.length > 0
      ? [
          `a verified certificate for ${unverified.join(', ')}: sslmode=no-verify takes any certificate (sslmode=verify-full, with sslrootcert for a private CA; sslmode=disable only for a network you trust)`,
        ]
      : []),
  ];
}
