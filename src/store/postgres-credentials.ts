// Credentials that change while Quipu runs (ASVS 13.2.1): each new PostgreSQL connection signs in
// with the user and password DATABASE_URL_FILE holds at that moment, so a secrets manager that
// issues short-lived credentials (Vault's database secrets engine, rendered by its agent) replaces
// them without a restart. The connections already open keep theirs until they end
// (DB_CONNECTION_MAX_LIFETIME_SECONDS, the pool's idle timeout). The rest of the URL (hosts, the
// database, TLS and its certificate files, parameters) is the one read at start.
import type { Logger } from 'pino';
import { readSecretFile } from '../config.js';
import { urlCredentials } from './postgres-hosts.js';
import type { ClientClass } from './primary-locator.js';

/** What node-postgres signs in with: the startup message takes the user from here, the password exchange from the client. */
interface ConnectionParameters {
  user: string;
  password: string | null;
}

/** A client class of `Base` whose every connection first reads its user and password from `file` (DATABASE_URL_FILE). */
export function signingInFrom(file: string, Base: ClientClass, log: Logger | undefined): ClientClass {
  return class FileCredentialsClient extends Base {
    // pg-pool connects with a callback, pg's own users without: both are kept.
    override connect(...args: unknown[]): never {
      const [callback] = args as [((error?: Error) => void) | undefined];
      const connected = this.#readCredentials().then(() => super.connect());
      if (!callback) return connected as never;
      connected.then(() => callback(), callback);
      return undefined as never;
    }

    async #readCredentials(): Promise<void> {
      try {
        const { user, password } = credentialsIn(await readSecretFile('DATABASE_URL', file), file);
        const parameters = (this as unknown as { connectionParameters: ConnectionParameters }).connectionParameters;
        if (user !== undefined) this.user = parameters.user = user;
        if (password !== undefined) this.password = parameters.password = password;
      } catch (error) {
        // The message names the file and why, never what it holds.
        log?.error({ err: error }, 'a database connection could not read its credentials; it is not opened');
        throw error;
      }
    }
  };
}

function credentialsIn(url: string, file: string): ReturnType<typeof urlCredentials> {
  try {
    return urlCredentials(url);
  } catch {
    throw new Error(`DATABASE_URL_FILE names ${file}, which holds no postgres:// URL whose user and password can be read`);
  }
}
