// Whether a PostgreSQL DATABASE_URL would carry the database's traffic (its password, payers' data)
// across a network in the clear. node-postgres asks for TLS only when told to (sslmode or ssl in
// the URL, or PGSSLMODE): a production installation refuses to start until the URL says which,
// unless every host is this machine. `sslmode=disable` is such a saying: the operator's own
// judgement that the network between them is trusted.
import type { Config } from '../config.js';
import { addressScope } from '../domain/network-address.js';
import { postgresTarget } from './postgres-hosts.js';

const onThisMachine = (host: string) => host.startsWith('/') || host.toLowerCase() === 'localhost' || addressScope(host) === 'loopback';

/** The hosts of `databaseUrl` reached over a network with no word on TLS; none for SQLite. */
export function databaseHostsInClear(databaseUrl: string, env: Record<string, string | undefined>): string[] {
  if (databaseUrl.startsWith('sqlite:') || env.PGSSLMODE) return [];
  const query = databaseUrl.indexOf('?');
  const parameters = new URLSearchParams(query < 0 ? '' : databaseUrl.slice(query + 1));
  if (parameters.has('sslmode') || parameters.has('ssl')) return [];
  // A host parameter (a Unix socket's directory) takes the place of the URL's host, as libpq reads it.
  const socketOrHost = parameters.get('host');
  const hosts = socketOrHost ? [socketOrHost] : postgresTarget(databaseUrl).hosts.map(({ host }) => host);
  return hosts.filter((host) => !onThisMachine(host));
}

/** What a production installation lacks for its database's traffic, as productionProblems words it; none in developer mode. */
export function databaseTransportProblems(config: Pick<Config, 'sandbox' | 'databaseUrl'>, env: Record<string, string | undefined>): string[] {
  const inClear = config.sandbox ? [] : databaseHostsInClear(config.databaseUrl, env);
  if (inClear.length === 0) return [];
  return [`sslmode in DATABASE_URL, which reaches ${inClear.join(', ')} over the network (sslmode=verify-full; sslmode=disable only for a network you trust)`];
}
