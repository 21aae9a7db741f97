// Which database a command works on. Every command names it on stderr before anything else, so one
// run from another folder, or with another DATABASE_URL, says so at once. And the one-shot commands
// do not create the default embedded database where there is none: run from the wrong folder they
// would act on a new, empty one and find nothing, without saying why.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { withoutPassword } from '../store/postgres-hosts.js';

/** `sqlite <absolute path>`, or `postgres <URL>` without its password. */
export function databaseName(url: string): string {
  if (url.startsWith('sqlite:')) return `sqlite ${path.resolve(url.slice('sqlite:'.length))}`;
  // Not WHATWG's URL: a primary and its standbys (`@db1:5432,db2:5432`) are no URL to it.
  return `postgres ${withoutPassword(url)}`;
}

export function announceDatabase(config: Config): void {
  console.error(`database: ${databaseName(config.databaseUrl)}`);
}

/**
 * Why a one-shot command must not open the configured database, or undefined: the default one
 * (neither DATABASE_URL nor DATA_DIR set, so it depends on the folder) where there is none.
 */
export function missingDefaultDatabase(config: Config, env: Record<string, string | undefined> = process.env): string | undefined {
  if (env.DATABASE_URL || env.DATABASE_URL_FILE || env.DATA_DIR) return undefined;
  const file = config.databaseUrl.slice('sqlite:'.length);
  if (fs.existsSync(file)) return undefined;
  return `no database at ${file} (neither DATABASE_URL nor DATA_DIR is set: the default is data/quipu.db in the current folder). Run the command where Quipu runs, set DATABASE_URL or DATA_DIR, or create a database here with \`quipu migrate\``;
}

// Nothing to connect to, a refused sign-in, no such database; a file SQLite cannot open or read.
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '28P01',
  '28000',
  '3D000',
  'SQLITE_CANTOPEN',
  'SQLITE_NOTADB',
  'SQLITE_PERM',
]);

// The server's certificate did not verify: not its CA, out of its dates, or for another name.
const UNVERIFIED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** What an operator reads when the database named at start cannot be reached or opened; undefined for any other failure. */
export function databaseFailure(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const message = (error as Error).message;
  if (UNVERIFIED.has(code))
    return `cannot use the database: its certificate does not verify (${message.replace(/[:\s]+$/, '')}). Check sslrootcert in DATABASE_URL (the CA that issued the server's certificate) and that the URL names a host the certificate names`;
  if (!UNREACHABLE.has(code)) return undefined;
  return `cannot use the database: ${message}. Check DATABASE_URL, and that the database is running and takes this user`;
}
