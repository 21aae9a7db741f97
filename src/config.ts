// Every setting of Quipu, its default and the environment variable that overrides it.
// `docs/configuration.md` lists the same table for operators; keep the two in step.
import fs from 'node:fs';
import path from 'node:path';
import { findBank } from './domain/banks.js';
import { ACCOUNT_TYPES, type CollectionAccount, DEMO_COLLECTION_ACCOUNT, isDemoCollectionAccount } from './domain/collection-account.js';
import { RECEIVER_ID_PATTERN, RECEIVER_SECRET_PATTERN, UUID_PATTERN } from './domain/ids.js';
import { DEFAULT_MESSAGE_RETENTION_DAYS, retentionProblem } from './domain/message-retention.js';
import { type DestinationRules, hostPattern } from './domain/notify-destinations.js';
import { PKCE_RULES, type PkceRule } from './domain/oauth-pkce.js';
import { MAX_HASH_COST, MIN_HASH_COST, PASSWORD_HASH_COST } from './domain/password-hash.js';
import { MIN_PASSWORD_LENGTH, PASSWORD_PROBLEMS, passwordProblem } from './domain/password-policy.js';
import { formatRut, parseRut } from './domain/rut.js';
import type { SnapshotLimits } from './domain/snapshot-limits.js';
import { TWO_FACTOR_MODES, type TwoFactorMode } from './domain/two-factor.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Where each API request's record goes (docs/request-logs.md): a file of its own, the API's database, the log stream, nowhere. */
export const REQUEST_LOG_STORES = ['file', 'database', 'log', 'off'] as const;
export type RequestLogStore = (typeof REQUEST_LOG_STORES)[number];

/** A log collector on another machine: `tcp://`, `tls://` (TCP with a verified certificate) or `udp://` host and port. */
export interface LogDestination {
  protocol: 'tcp' | 'tls' | 'udp';
  host: string;
  port: number;
}

export interface Config {
  /** PORT: TCP port of the HTTP server (0 picks a free one). */
  port: number;
  /** HOST: interface to listen on. */
  host: string;
  /** PUBLIC_BASE_URL: the URL clients use to reach this server; payment URLs and v2 signatures use it. */
  publicBaseUrl: string;
  /** DASHBOARD_BASE_URL: the dashboard's own origin (another host than PUBLIC_BASE_URL's); unset, the dashboard is served on PUBLIC_BASE_URL. */
  dashboardBaseUrl: string | undefined;
  /** DATABASE_URL: `sqlite:<path>` (embedded, the default) or `postgres://...`. */
  databaseUrl: string;
  /** DATABASE_URL_FILE: the file DATABASE_URL is read from, read again for the user and password of each new PostgreSQL connection (credentials a secrets manager replaces while Quipu runs). */
  databaseUrlFile: string | undefined;
  /** DATA_DIR: where the embedded database and the generated encryption key live. */
  dataDir: string;
  /** LOG_LEVEL: pino level. */
  logLevel: LogLevel;
  /** LOG_DESTINATION: `tcp://host:port`, `tls://host:port` or `udp://host:port` of a log collector that `quipu serve` and `quipu worker` send every line to, besides stdout; `stdout` where the platform ships standard output off the host. */
  logDestination: LogDestination | 'stdout' | undefined;
  /** QUIPU_ENCRYPTION_KEY: 32 bytes (64 hex chars or base64) encrypting receiver secrets at rest. */
  encryptionKey: string | undefined;
  /** QUIPU_ENCRYPTION_KEY_PREVIOUS: keys replaced by QUIPU_ENCRYPTION_KEY (comma-separated), still opening what they sealed until `quipu keys reseal`. */
  previousEncryptionKeys: string[];
  /** BODY_LIMIT: largest accepted request body in bytes. */
  bodyLimit: number;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For names the client (addresses or CIDRs, comma-separated, or a number of hops); unset, the peer address is the client. */
  trustProxy: string | number | false;
  /** HEADERS_TIMEOUT_MS: a request whose headers have not all arrived by then is answered 408 and closed. */
  headersTimeoutMs: number;
  /** REQUEST_TIMEOUT_MS: a request whose body has not all arrived by then is answered 408 and closed. */
  requestTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS: an idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** API_RATE_LIMIT: API requests per second per account (per client address before authentication), per process; where it is on, failed credentials are limited per address too (domain/credential-failures.ts); 0 turns both off. */
  apiRateLimit: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections from one peer address; more are closed at once (0: no cap). */
  maxConnectionsPerAddress: number;
  /** SQLITE_SYNCHRONOUS: `full` (what is acknowledged survives power loss) or `normal` (only process crashes; faster). */
  sqliteSynchronous: 'normal' | 'full';
  /** DB_POOL_SIZE: PostgreSQL connections per process. */
  dbPoolSize: number;
  /** DB_CONNECTION_MAX_LIFETIME_SECONDS: a PostgreSQL connection this old is closed once its transaction ends and replaced by one that signs in anew (0: kept as long as it works). */
  dbConnectionMaxLifetimeSeconds: number;
  /** CREDENTIAL_CACHE_SIZE: API keys, accounts, verified bearer tokens and their revocation state kept in memory per process (each). */
  credentialCacheSize: number;
  /** INVALIDATION_POLL_MS: how often a process reads the shared invalidation feed and clock (50–800). */
  invalidationPollMs: number;
  /** IDEMPOTENCY_TTL_HOURS: how long an Idempotency-Key and its stored answer are kept. */
  idempotencyTtlHours: number;
  /** IDEMPOTENCY_LOCK_SECONDS: after this, a claim whose request never finished may be retried. */
  idempotencyLockSeconds: number;
  /** MESSAGE_RETENTION_DAYS: how long a finished message and its attempt log are kept after their latest change (at least the resend window). */
  messageRetentionDays: number;
  /** REQUEST_LOG_RETENTION_DAYS: how long each account's log of API requests is kept (docs/request-logs.md); 0 records none. */
  requestLogRetentionDays: number;
  /** REQUEST_LOG_STORE: where that log goes (default: `file` in developer mode, `log` with SANDBOX=false); `off` where REQUEST_LOG_RETENTION_DAYS is 0. */
  requestLogStore: RequestLogStore;
  /** PAYMENT_DEFAULT_TTL_HOURS: expiry of a payment created without expires_date. */
  paymentDefaultTtlHours: number;
  /** DEMO_ACCOUNT: create a developer-mode demo account on first start with an empty database (default: the SANDBOX value). */
  demoAccount: boolean;
  /** DEMO_API_KEY, DEMO_SECRET, DEMO_RECEIVER_ID, DEMO_PASSWORD: fixed credentials of that demo account, each generated when unset. */
  demoCredentials: DemoCredentials;
  /** RUN_WORKER: run the notification delivery worker and the background jobs inside `quipu serve` (turn off when workers run as `quipu worker`). */
  runWorker: boolean;
  /** DELIVERY_CONCURRENCY: notification requests in flight at once per worker process. */
  deliveryConcurrency: number;
  /** DELIVERY_CONCURRENCY_PER_DESTINATION: of those, at most this many to one receiver origin (default: a quarter of DELIVERY_CONCURRENCY). */
  deliveryConcurrencyPerDestination: number;
  /** NOTIFY_URL_ALLOW_HTTP (default: the SANDBOX value), NOTIFY_URL_ALLOWED_HOSTS (comma-separated names, `*.name` wildcards and addresses; unset, any host), NOTIFY_URL_ACCOUNT_HOSTS (default: the opposite of SANDBOX; each account only at the hosts it registered), NOTIFY_URL_ALLOW_LINK_LOCAL (default: false; developer-mode accounts of a sandbox installation may notify link-local addresses too): the rules of every URL notified. */
  notifyDestinations: DestinationRules;
  /** DELIVERY_TIMEOUT_MS: a notification request that has not answered by then is a failed attempt. */
  deliveryTimeoutMs: number;
  /** DELIVERY_LEASE_MS: how long a worker holds the notifications it claimed (at least twice DELIVERY_TIMEOUT_MS); a dead worker's claims come back after it. */
  deliveryLeaseMs: number;
  /** DELIVERY_POLL_MS: how often an idle worker looks for due notifications. */
  deliveryPollMs: number;
  /** DELIVERY_BATCH_SIZE: most notifications claimed by one query (and attempts that trigger an immediate write of the attempt log). */
  deliveryBatchSize: number;
  /** JOBS_POLL_MS: how often a process that runs background jobs looks for due ones. */
  jobsPollMs: number;
  /** JOB_LEASE_MS: how long a run holds its job (renewed every third of it while it runs); a dead process's job is taken over after it. */
  jobLeaseMs: number;
  /** SANDBOX: developer-mode extras (the movable clock at /sandbox/clock); turn off on a production installation. */
  sandbox: boolean;
  /** SANDBOX_SNAPSHOTS_PER_ACCOUNT, SANDBOX_SNAPSHOT_BYTES_PER_ACCOUNT: how many snapshots a sandbox account keeps at most, and how many bytes they hold together. */
  snapshotLimits: SnapshotLimits;
  /** SECRETS_FROM_ENVIRONMENT: the operator's word that secrets given as plain environment variables come from a secrets manager (the platform injects them): with SANDBOX=false they are otherwise refused for their `<NAME>_FILE`. */
  secretsFromEnvironment: boolean;
  /** DATABASE_CREDENTIALS_ACCEPTED: the operator's word that they accept how Quipu signs in to PostgreSQL (a password that does not expire soon, rotated or not): with SANDBOX=false it is otherwise refused (store/postgres-sign-in.ts). */
  databaseCredentialsAccepted: boolean;
  /** DASHBOARD_TWO_FACTOR: `required` (the default with SANDBOX=false) lets no dashboard user in without a second factor (quipu users two-factor-enrol); `optional` (developer mode's default) asks it of those enrolled. */
  dashboardTwoFactor: TwoFactorMode;
  /** PASSWORD_HASH_COST: log2 of scrypt's N for new dashboard password hashes (17); below 17 only for test suites, refused with SANDBOX=false. */
  passwordHashCost: number;
  /** OPERATOR_TOKEN: bearer token of the operator API (/operator/v1: bank credits); unset, that API refuses every request. */
  operatorToken: string | undefined;
  /** SHUTDOWN_DRAIN_MS: after SIGTERM, how long `quipu serve` goes on serving with /readyz answering 503, so that a load balancer stops sending first. */
  shutdownDrainMs: number;
  /** BANK_TIMEOUT_MS: a bank that has not answered a transfer by then leaves it uncertain, for the bank to confirm or fail later; an institution that has not answered an OAuth sign-in by then ends the flow with E001. */
  bankTimeoutMs: number;
  /** PAYER_FORM_TTL_SECONDS: how long a payer page's form (its CSRF token) stays valid. */
  payerFormTtlSeconds: number;
  /** OAUTH_PKCE: `s256` (the default with SANDBOX=false) requires PKCE with S256 in every authorization request; `optional` (developer mode's default) takes none, or `plain`, as the provider's contract does. */
  oauthPkce: PkceRule;
  /** API_KEYS_RETIRED: the contract's announced retirement of API keys: x-api-key is refused everywhere (401) and only OAuth bearer tokens authenticate. */
  apiKeysRetired: boolean;
  /** SMTP_URL: `smtp://` or `smtps://` mail server (user and password in the URL, or the user alone with SMTP_OAUTH2_TOKEN_FILE) that payer emails are handed to; unset, they stay in the local inbox. */
  smtpUrl: string | undefined;
  /** SMTP_URL_FILE: the file SMTP_URL is read from, read again before each email: a changed URL (a new password) is used from the next email on, on new connections. */
  smtpUrlFile: string | undefined;
  /** SMTP_OAUTH2_TOKEN_FILE: a file holding an OAuth 2.0 access token that the platform renders and refreshes, read again before each email: the user of SMTP_URL signs in with it (XOAUTH2) instead of a password. */
  smtpOauth2TokenFile: string | undefined;
  /** SMTP_CREDENTIALS_ACCEPTED: the operator's word that they accept how Quipu signs in to the mail server (a password, rotated or not, or no sign-in to a relay on another host): with SANDBOX=false it is otherwise refused (delivery/mail-sign-in.ts). */
  smtpCredentialsAccepted: boolean;
  /** SMTP_REQUIRE_TLS: an smtp:// server that does not offer STARTTLS is not handed any email (default: on with SANDBOX=false); smtps:// is TLS from the start. */
  smtpRequireTls: boolean;
  /** SMTP_FROM: the sender of payer emails (`Name <address>` or an address; default `Quipu <no-reply@host of PUBLIC_BASE_URL>`). */
  smtpFrom: string;
  /** COLLECTION_BANK_ID, COLLECTION_ACCOUNT_TYPE, COLLECTION_ACCOUNT_NUMBER, COLLECTION_HOLDER_NAME, COLLECTION_HOLDER_RUT: the bank account payers transfer to (all five, or none for DemoBank's). */
  collectionAccount: CollectionAccount;
}

/** Fixed credentials of the demo account, for test suites and CI that start a fresh installation each time. */
export interface DemoCredentials {
  apiKey?: string;
  secret?: string;
  receiverId?: number;
  /** The demo user's dashboard password. */
  password?: string;
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const lower = raw.toLowerCase() as T;
  if (!allowed.includes(lower)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return lower;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function baseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('PUBLIC_BASE_URL must use http or https');
  // One spelling of the URL, which v2 signatures are checked against: the host in lower case and
  // no default port (what origin writes), and the path without a trailing slash.
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** An origin of its own: another host than the API's and payer pages', https where they are. */
function dashboardBaseUrl(raw: string | undefined, publicBaseUrl: string): string | undefined {
  if (!raw) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const pub = new URL(publicBaseUrl);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '')
    throw new ConfigError(`DASHBOARD_BASE_URL must be an origin, such as https://dashboard.pay.example, got "${raw}"`);
  if (url.host === pub.host) throw new ConfigError('DASHBOARD_BASE_URL must name another host than PUBLIC_BASE_URL: the point is a separate origin');
  if (pub.protocol === 'https:' && url.protocol !== 'https:') throw new ConfigError('DASHBOARD_BASE_URL must be https when PUBLIC_BASE_URL is');
  return url.origin;
}

function databaseUrl(raw: string): string {
  if (raw.startsWith('sqlite:') || raw.startsWith('postgres://') || raw.startsWith('postgresql://')) return raw;
  throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, got "${raw}"`);
}

export function loadConfig(given: Env = process.env): Config {
  const env = withSecretFiles(given);
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const sandbox = flag(env, 'SANDBOX', true);
  const requestLogRetentionDays = integer(env, 'REQUEST_LOG_RETENTION_DAYS', 7, 0, 365);
  const publicBaseUrl = baseUrl(env.PUBLIC_BASE_URL || `http://localhost:${port}`);
  return {
    port,
    host,
    publicBaseUrl,
    dashboardBaseUrl: dashboardBaseUrl(env.DASHBOARD_BASE_URL, publicBaseUrl),
    databaseUrl: databaseUrl(env.DATABASE_URL || `sqlite:${path.join(dataDir, 'quipu.db')}`),
    databaseUrlFile: env.DATABASE_URL_FILE || undefined,
    dataDir,
    logLevel: oneOf<LogLevel>(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    logDestination: logDestination(env.LOG_DESTINATION),
    encryptionKey: env.QUIPU_ENCRYPTION_KEY || undefined,
    previousEncryptionKeys: (env.QUIPU_ENCRYPTION_KEY_PREVIOUS ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== ''),
    bodyLimit: integer(env, 'BODY_LIMIT', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    trustProxy: trustProxy(env.TRUST_PROXY),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 1_000, 600_000),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 600_000),
    maxConnectionsPerAddress: integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
    // Off in developer mode unless asked for: a developer's load test is no abuse.
    apiRateLimit: integer(env, 'API_RATE_LIMIT', sandbox ? 0 : 100, 0, 1_000_000),
    // A production installation asks every dashboard user for a second factor unless told otherwise.
    dashboardTwoFactor: oneOf(env, 'DASHBOARD_TWO_FACTOR', sandbox ? 'optional' : 'required', TWO_FACTOR_MODES),
    passwordHashCost: passwordHashCost(env, sandbox),
    sqliteSynchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', 'full', ['normal', 'full'] as const),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 500),
    dbConnectionMaxLifetimeSeconds: integer(env, 'DB_CONNECTION_MAX_LIFETIME_SECONDS', 0, 0, 7 * 24 * 3600),
    credentialCacheSize: integer(env, 'CREDENTIAL_CACHE_SIZE', 10_000, 1, 10_000_000),
    // A revocation must stop the token in every process within one second: the interval plus the
    // time of one read of the feed, so at most 800 ms leaves a read 200 ms.
    invalidationPollMs: integer(env, 'INVALIDATION_POLL_MS', 500, 50, 800),
    idempotencyTtlHours: integer(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 365),
    idempotencyLockSeconds: integer(env, 'IDEMPOTENCY_LOCK_SECONDS', 60, 1, 3600),
    messageRetentionDays: messageRetentionDays(env),
    requestLogRetentionDays,
    requestLogStore: requestLogStore(env, sandbox, requestLogRetentionDays),
    paymentDefaultTtlHours: integer(env, 'PAYMENT_DEFAULT_TTL_HOURS', 24, 1, 24 * 365),
    // A production installation (SANDBOX=false) gets no demo account unless asked for one.
    demoAccount: flag(env, 'DEMO_ACCOUNT', sandbox),
    demoCredentials: demoCredentials(env, sandbox),
    ...delivery(env),
    // A production installation notifies over TLS unless the operator says otherwise (an internal network).
    notifyDestinations: {
      httpAllowed: flag(env, 'NOTIFY_URL_ALLOW_HTTP', sandbox),
      allowedHosts: allowedHosts(env.NOTIFY_URL_ALLOWED_HOSTS),
      accountHosts: flag(env, 'NOTIFY_URL_ACCOUNT_HOSTS', !sandbox),
      // A developer's receiver is on localhost or the office network, never where a cloud answers with the machine's credentials.
      linkLocalAllowed: flag(env, 'NOTIFY_URL_ALLOW_LINK_LOCAL', false),
    },
    jobsPollMs: integer(env, 'JOBS_POLL_MS', 1_000, 10, 60_000),
    jobLeaseMs: integer(env, 'JOB_LEASE_MS', 60_000, 1_000, 3_600_000),
    sandbox,
    snapshotLimits: {
      perAccount: integer(env, 'SANDBOX_SNAPSHOTS_PER_ACCOUNT', 20, 1, 10_000),
      bytesPerAccount: integer(env, 'SANDBOX_SNAPSHOT_BYTES_PER_ACCOUNT', 256 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
    },
    secretsFromEnvironment: flag(env, 'SECRETS_FROM_ENVIRONMENT', false),
    databaseCredentialsAccepted: flag(env, 'DATABASE_CREDENTIALS_ACCEPTED', false),
    operatorToken: operatorToken(env.OPERATOR_TOKEN),
    // A developer's restart should be quick; behind a load balancer, a few of its health checks.
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', sandbox ? 0 : 5_000, 0, 300_000),
    bankTimeoutMs: integer(env, 'BANK_TIMEOUT_MS', 30_000, 100, 300_000),
    payerFormTtlSeconds: integer(env, 'PAYER_FORM_TTL_SECONDS', 3 * 3600, 1, 7 * 24 * 3600),
    apiKeysRetired: flag(env, 'API_KEYS_RETIRED', false),
    // A stolen authorization code is worthless without the verifier: production insists (RFC 9700).
    oauthPkce: oneOf(env, 'OAUTH_PKCE', sandbox ? 'optional' : 's256', PKCE_RULES),
    collectionAccount: collectionAccount(env),
    ...mail(env, publicBaseUrl, sandbox),
  };
}

/**
 * Settings that may instead be read from the file `<NAME>_FILE` names: a Docker or Kubernetes
 * secret's mount, or the file a secrets manager's agent (Vault agent, a CSI driver) renders, so
 * that no secret sits in the process's environment or in a compose file.
 */
export const SECRET_FILE_SETTINGS = [
  'DATABASE_URL',
  'QUIPU_ENCRYPTION_KEY',
  'QUIPU_ENCRYPTION_KEY_PREVIOUS',
  'OPERATOR_TOKEN',
  'SMTP_URL',
  'DEMO_API_KEY',
  'DEMO_SECRET',
  'DEMO_PASSWORD',
] as const;

/** `env` with each secret read from its file. */
export function withSecretFiles(env: Env): Env {
  const read: Env = {};
  for (const name of SECRET_FILE_SETTINGS) {
    const file = env[`${name}_FILE`];
    if (!file) continue;
    if (env[name]) throw new ConfigError(`${name} and ${name}_FILE are both set: set one of them`);
    try {
      read[name] = secretValue(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ConfigError(unreadableSecretFile(name, file, error));
    }
  }
  return { ...env, ...read };
}

/**
 * A secret read again while the process runs, from the file its `<NAME>_FILE` names: the database's
 * and the mail server's credentials at each new connection (store/postgres-credentials.ts,
 * delivery/email-transport.ts), which a secrets manager replaces without a restart. The error names
 * the setting, the file and why, never what it holds.
 */
export async function readSecretFile(name: (typeof SECRET_FILE_SETTINGS)[number] | 'SMTP_OAUTH2_TOKEN', file: string): Promise<string> {
  try {
    return secretValue(await fs.promises.readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(unreadableSecretFile(name, file, error));
  }
}

/** A file's final line break (what editors and `echo` add) is not part of the value. */
const secretValue = (text: string) => text.replace(/\r?\n$/, '');

const unreadableSecretFile = (name: string, file: string, error: unknown) =>
  `${name}_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;

/**
 * Where the public base URL comes from: PUBLIC_BASE_URL itself, the PORT it is derived from, or
 * neither. Then it is the default, which a one-shot command takes from the running server instead
 * (src/cli/public-url.ts).
 */
export function publicBaseUrlSetting(env: Env = process.env): 'PUBLIC_BASE_URL' | 'PORT' | undefined {
  if (env.PUBLIC_BASE_URL) return 'PUBLIC_BASE_URL';
  if (env.PORT) return 'PORT';
  return undefined;
}

/** A cheaper hash makes a stolen database's passwords cheaper to guess: only a test suite's sandbox may ask for one. */
function passwordHashCost(env: Env, sandbox: boolean): number {
  const cost = integer(env, 'PASSWORD_HASH_COST', PASSWORD_HASH_COST, MIN_HASH_COST, MAX_HASH_COST);
  if (!sandbox && cost < PASSWORD_HASH_COST)
    throw new ConfigError(`PASSWORD_HASH_COST below ${PASSWORD_HASH_COST} is for test suites only and refused with SANDBOX=false, got ${cost}`);
  return cost;
}

/** REQUEST_LOG_RETENTION_DAYS=0 keeps nothing, wherever REQUEST_LOG_STORE would put it (a wrong value of it is still refused). */
function requestLogStore(env: Env, sandbox: boolean, retentionDays: number): RequestLogStore {
  // A production installation's API requests go to its log stream, never to its transactional store.
  const store = oneOf(env, 'REQUEST_LOG_STORE', sandbox ? 'file' : 'log', REQUEST_LOG_STORES);
  return retentionDays === 0 ? 'off' : store;
}

/** A shorter retention would prune messages the contract still promises to resend. */
function messageRetentionDays(env: Env): number {
  const days = integer(env, 'MESSAGE_RETENTION_DAYS', DEFAULT_MESSAGE_RETENTION_DAYS, 0, Number.MAX_SAFE_INTEGER);
  const problem = retentionProblem(days);
  if (problem) throw new ConfigError(`MESSAGE_RETENTION_DAYS ${problem}`);
  return days;
}

function logDestination(raw: string | undefined): LogDestination | 'stdout' | undefined {
  if (!raw) return undefined;
  if (raw === 'stdout') return raw;
  const match = /^(tcp|tls|udp):\/\/(\[[0-9a-fA-F:.]+\]|[^\s/:@[\]]+):(\d{1,5})$/.exec(raw);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535)
    throw new ConfigError(`LOG_DESTINATION must be tcp://, tls:// or udp:// with a host and a port, such as tls://logs.example:6514, or stdout, got "${raw}"`);
  return { protocol: match[1] as LogDestination['protocol'], host: match[2]!.replace(/^\[(.*)\]$/, '$1'), port };
}

/** A token that guards money (a forged credit marks a payment paid) must be too long to guess. */
export const MIN_OPERATOR_TOKEN_LENGTH = 32;

function operatorToken(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (raw.length < MIN_OPERATOR_TOKEN_LENGTH)
    throw new ConfigError(
      `OPERATOR_TOKEN must be at least ${MIN_OPERATOR_TOKEN_LENGTH} characters (it has ${raw.length}): generate one with \`openssl rand -hex 32\``,
    );
  return raw;
}

/**
 * Fastify's trustProxy: a hop count, or the proxies' addresses and CIDRs. Trusting every peer
 * (`true`) is not offered: any client could then name itself any address, and the sign-in limits
 * count per address.
 */
function trustProxy(raw: string | undefined): string | number | false {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => !/^[0-9a-fA-F.:]+(?:\/\d{1,3})?$/.test(entry)))
    throw new ConfigError(`TRUST_PROXY must be a number of hops or proxy addresses and CIDRs separated by commas, got "${raw}"`);
  return entries.join(',');
}

function mail(env: Env, publicBaseUrl: string, sandbox: boolean) {
  const smtpUrl = env.SMTP_URL || undefined;
  const smtpOauth2TokenFile = env.SMTP_OAUTH2_TOKEN_FILE || undefined;
  if (smtpOauth2TokenFile && !smtpUrl)
    throw new ConfigError(
      `SMTP_OAUTH2_TOKEN_FILE needs SMTP_URL (or SMTP_URL_FILE) naming the mail server and the user the token signs in as, such as ${OAUTH2_URL_EXAMPLE}`,
    );
  const problem = smtpUrl === undefined ? undefined : smtpUrlProblem(smtpUrl, smtpOauth2TokenFile !== undefined);
  if (problem) throw new ConfigError(`SMTP_URL ${problem}`);
  const smtpFrom = env.SMTP_FROM || `Quipu <no-reply@${new URL(publicBaseUrl).hostname}>`;
  // It becomes the From header of every email: one line, one address.
  if (!/^(?:[^<>@\r\n]*<[^<>\s@]+@[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+)$/.test(smtpFrom))
    throw new ConfigError(`SMTP_FROM must be "Name <address>" or an address, got "${smtpFrom}"`);
  // Payers' emails cross the network in the clear unless the server takes STARTTLS: a production installation insists.
  return {
    smtpUrl,
    smtpUrlFile: env.SMTP_URL_FILE || undefined,
    smtpOauth2TokenFile,
    smtpCredentialsAccepted: flag(env, 'SMTP_CREDENTIALS_ACCEPTED', false),
    smtpFrom,
    smtpRequireTls: flag(env, 'SMTP_REQUIRE_TLS', !sandbox),
  };
}

// nodemailer lets the URL's query override the options Quipu gives it: `?tls.rejectUnauthorized=false`
// would take any certificate, `?ignoreTLS=true` send payers' emails in the clear.
const TLS_PARAMETER = /^(?:tls\..*|ignoretls|requiretls|opportunistictls|secure)$/i;

const OAUTH2_URL_EXAMPLE = 'smtp://quipu@mail.example:587';

/**
 * Why SMTP_URL cannot be used, at start and when its file is read again (delivery/email-transport.ts);
 * the URL itself is never repeated. With an OAuth 2.0 token (`oauth2`) the URL names the user the
 * token is for, and no password that would stand beside it.
 */
export function smtpUrlProblem(url: string, oauth2 = false): string | undefined {
  if (!/^smtps?:\/\/[^\s]+$/i.test(url)) return 'must be an smtp:// or smtps:// URL';
  if (oauth2 && holdsPassword(url))
    return `must hold no password with SMTP_OAUTH2_TOKEN_FILE, whose token signs in: the user alone, such as ${OAUTH2_URL_EXAMPLE}`;
  if (oauth2 && smtpUser(url) === '') return `must name the user the token of SMTP_OAUTH2_TOKEN_FILE signs in as, such as ${OAUTH2_URL_EXAMPLE}`;
  const query = url.indexOf('?');
  const weakening = [...new URLSearchParams(query < 0 ? '' : url.slice(query + 1)).keys()].filter((key) => TLS_PARAMETER.test(key));
  if (weakening.length === 0) return undefined;
  return `must not set ${weakening.join(', ')}: TLS to the mail server is SMTP_REQUIRE_TLS's to loosen, and a private CA is trusted through NODE_EXTRA_CA_CERTS`;
}

/** The demo account's user and name (app/demo-account.ts). */
export const DEMO_USER = 'demo@quipu.local';
export const DEMO_ACCOUNT_NAME = 'Quipu demo store';

/**
 * Each in the provider's format, so that code written against the provider takes them; secrets are
 * not echoed. With SANDBOX=false the demo user's password follows the password rules as anyone's.
 */
function demoCredentials(env: Env, sandbox: boolean): DemoCredentials {
  const { DEMO_API_KEY: apiKey, DEMO_SECRET: secret, DEMO_RECEIVER_ID: receiverId, DEMO_PASSWORD: password } = env;
  if (apiKey && !UUID_PATTERN.test(apiKey))
    throw new ConfigError('DEMO_API_KEY must be an API key: a UUID in lower case, such as 51f210fe-2fa4-4205-b21b-f1d72d92ebb1');
  if (secret && !RECEIVER_SECRET_PATTERN.test(secret))
    throw new ConfigError(`DEMO_SECRET must be a receiver secret: 40 hexadecimal digits in lower case (it has ${secret.length} characters)`);
  if (receiverId && !RECEIVER_ID_PATTERN.test(receiverId))
    throw new ConfigError(`DEMO_RECEIVER_ID must be a receiver id: six digits, not starting with 0, got "${receiverId}"`);
  if (password && password.length < MIN_PASSWORD_LENGTH) throw new ConfigError(`DEMO_PASSWORD must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const problem = password && !sandbox ? passwordProblem(password, { email: DEMO_USER, accountName: DEMO_ACCOUNT_NAME }) : undefined;
  if (problem) throw new ConfigError(`DEMO_PASSWORD ${PASSWORD_PROBLEMS[problem]} (the password rules apply with SANDBOX=false)`);
  return { apiKey: apiKey || undefined, secret: secret || undefined, receiverId: receiverId ? Number(receiverId) : undefined, password: password || undefined };
}

function allowedHosts(raw: string | undefined): string[] {
  const entries = (raw ?? '').split(',').filter((entry) => entry.trim() !== '');
  return entries.map((entry) => {
    const pattern = hostPattern(entry);
    if (pattern === undefined)
      throw new ConfigError(`NOTIFY_URL_ALLOWED_HOSTS must list host names, *.name wildcards or addresses separated by commas, got "${entry.trim()}"`);
    return pattern;
  });
}

/** One slow receiver may hold at most a quarter of a worker's requests: the rest keep serving the others. */
export function defaultConcurrencyPerDestination(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 4));
}

function delivery(env: Env) {
  const deliveryTimeoutMs = integer(env, 'DELIVERY_TIMEOUT_MS', 15_000, 100, 300_000);
  const deliveryLeaseMs = integer(env, 'DELIVERY_LEASE_MS', 60_000, 1_000, 3_600_000);
  // A lease covers a request and its wait for a free slot; a shorter one would hand an attempt
  // still in flight to another worker.
  if (deliveryLeaseMs < 2 * deliveryTimeoutMs) throw new ConfigError('DELIVERY_LEASE_MS must be at least twice DELIVERY_TIMEOUT_MS');
  const deliveryConcurrency = integer(env, 'DELIVERY_CONCURRENCY', 64, 1, 10_000);
  return {
    runWorker: flag(env, 'RUN_WORKER', true),
    deliveryConcurrency,
    deliveryConcurrencyPerDestination: integer(
      env,
      'DELIVERY_CONCURRENCY_PER_DESTINATION',
      defaultConcurrencyPerDestination(deliveryConcurrency),
      1,
      deliveryConcurrency,
    ),
    deliveryTimeoutMs,
    deliveryLeaseMs,
    deliveryPollMs: integer(env, 'DELIVERY_POLL_MS', 250, 10, 60_000),
    deliveryBatchSize: integer(env, 'DELIVERY_BATCH_SIZE', 200, 1, 5_000),
  };
}

/**
 * What a production installation (SANDBOX=false) lacks to run safely, one item per missing setting:
 * without its own collection account payers would be told to transfer to DemoBank's, without a set
 * key receiver secrets depend on a file in DATA_DIR, over http payers' pages and secrets travel in
 * the clear, a dashboard on the payer pages' origin shares their same-origin trust (ASVS 3.5.4),
 * and logs kept only on this machine go with it when it is taken (16.4.3: the operator names the
 * collector, or says with `stdout` that the platform ships the stream). Empty when nothing is
 * missing or the installation is a sandbox (the database's own transport is
 * store/postgres-tls.ts's to judge).
 */
export function productionProblems(config: Config): string[] {
  if (config.sandbox) return [];
  return [
    ...(isDemoCollectionAccount(config.collectionAccount) ? [`the collection account (${COLLECTION_SETTINGS.join(', ')}, at a bank other than DemoBank)`] : []),
    ...(config.encryptionKey === undefined ? ['QUIPU_ENCRYPTION_KEY'] : []),
    ...(new URL(config.publicBaseUrl).protocol !== 'https:' ? ['an https PUBLIC_BASE_URL'] : []),
    ...(config.dashboardBaseUrl === undefined ? ['DASHBOARD_BASE_URL (the dashboard on a host of its own)'] : []),
    ...(config.logDestination === undefined
      ? ['LOG_DESTINATION (a collector such as tls://logs.example:6514, or stdout where the platform ships standard output off this machine)']
      : []),
  ];
}

/** Settings that are secret whatever they hold. */
const FILE_ONLY_SECRETS = ['QUIPU_ENCRYPTION_KEY', 'QUIPU_ENCRYPTION_KEY_PREVIOUS', 'OPERATOR_TOKEN'] as const;
/** Addresses that are a secret when they hold a password (a client certificate, or no password, leaves nothing secret in them). */
const URL_SECRETS = ['DATABASE_URL', 'SMTP_URL'] as const;

/** What comes before `@` in the URL's authority (`user:password`), empty when nothing does. */
function userInfo(url: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
  return authority.slice(0, Math.max(authority.lastIndexOf('@'), 0));
}

/** A password in the URL's user information (`user:password@`) or, as libpq also takes it, in a `password` parameter. */
export function holdsPassword(url: string): boolean {
  const query = url.indexOf('?');
  return /:./.test(userInfo(url)) || !!new URLSearchParams(query < 0 ? '' : url.slice(query + 1)).get('password');
}

/** The user a mail server URL signs in as, decoded as nodemailer decodes it (a malformed escape kept as written); empty when it names none. */
export function smtpUser(url: string): string {
  const user = userInfo(url).split(':')[0]!;
  try {
    return decodeURIComponent(user);
  } catch {
    return user;
  }
}

/**
 * ASVS 13.3.1: a production installation (SANDBOX=false) takes its secrets from the files a secrets
 * manager renders (`<NAME>_FILE`), not from environment variables, which whoever may inspect the
 * process or its container reads (`docker inspect`, /proc/<pid>/environ, a crash report) and every
 * child process inherits. PGPASSWORD, which node-postgres reads by itself, is one too. The operator
 * whose platform injects a secrets manager's values as variables says so with
 * SECRETS_FROM_ENVIRONMENT=true. One item naming each setting given plainly with the `_FILE` that
 * replaces it, or none (`env`: the environment as given, before the files are read).
 */
export function secretsInEnvironment(config: Pick<Config, 'sandbox' | 'secretsFromEnvironment'>, env: Env): string[] {
  if (config.sandbox || config.secretsFromEnvironment) return [];
  const plain = [
    ...FILE_ONLY_SECRETS.filter((name) => env[name]).map((name) => `${name}_FILE for ${name}`),
    ...URL_SECRETS.filter((name) => env[name] && holdsPassword(env[name])).map((name) => `${name}_FILE for ${name} (it holds a password)`),
    ...(env.PGPASSWORD ? ['DATABASE_URL_FILE (the password in its URL) for PGPASSWORD'] : []),
  ];
  if (plain.length === 0) return [];
  return [
    `secrets from files, not environment variables: ${plain.join(', ')} (or SECRETS_FROM_ENVIRONMENT=true where the platform hands a secrets manager's values over as environment variables)`,
  ];
}

const COLLECTION_SETTINGS = [
  'COLLECTION_BANK_ID',
  'COLLECTION_ACCOUNT_TYPE',
  'COLLECTION_ACCOUNT_NUMBER',
  'COLLECTION_HOLDER_NAME',
  'COLLECTION_HOLDER_RUT',
] as const;

/** All five settings or none: DemoBank's bank with a real account number would send payers' money nowhere. */
function collectionAccount(env: Env): CollectionAccount {
  const given = COLLECTION_SETTINGS.filter((name) => env[name]);
  if (given.length === 0) return DEMO_COLLECTION_ACCOUNT;
  const missing = COLLECTION_SETTINGS.filter((name) => !env[name]);
  if (missing.length > 0) throw new ConfigError(`${given.join(', ')} set without ${missing.join(', ')}: the collection account needs all five`);
  const bankId = env.COLLECTION_BANK_ID!;
  if (!findBank(bankId, true)) throw new ConfigError(`COLLECTION_BANK_ID must be a bank_id of the catalogue, got "${bankId}"`);
  const rut = parseRut(env.COLLECTION_HOLDER_RUT!);
  if (!rut) throw new ConfigError(`COLLECTION_HOLDER_RUT must be a valid RUT, got "${env.COLLECTION_HOLDER_RUT}"`);
  return {
    bankId,
    accountType: oneOf(env, 'COLLECTION_ACCOUNT_TYPE', 'cuenta_corriente', ACCOUNT_TYPES),
    number: env.COLLECTION_ACCOUNT_NUMBER!.trim(),
    holderName: env.COLLECTION_HOLDER_NAME!.trim(),
    holderRut: formatRut(rut),
  };
}
