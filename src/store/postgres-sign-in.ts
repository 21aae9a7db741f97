// How a production installation signs in to PostgreSQL (ASVS 13.2.1: individual service accounts,
// short-term tokens or certificates, never an unchanging password). Quipu cannot read a password's
// lifetime from the password, but PostgreSQL keeps it: a secrets manager that issues short-lived
// roles (Vault's database secrets engine) creates each with VALID UNTIL its lease's end. So, once
// connected, `quipu serve` and `quipu worker` ask the server how this connection signed in and
// refuse to start on a password that never expires, or expires later than a lease would, unless
// the operator says DATABASE_CREDENTIALS_ACCEPTED=true. Behind a pooler the answer is the pooler's
// own sign-in to PostgreSQL (docs/operations.md, Secrets).
import { type Kysely, sql } from 'kysely';
import { type Config, holdsPassword } from '../config.js';
import type { DB } from './schema.js';
import { reachesOnlyThisMachine } from './postgres-tls.js';

/** The longest a password may stay valid and count as short-lived: the longest lease Vault grants by default (768 h). */
export const SHORT_LIVED_DAYS = 32;

/** How this connection signed in, as PostgreSQL tells it. */
export interface SignIn {
  role: string;
  /** When the role's password stops working (VALID UNTIL), or null when never. */
  validUntil: string | null;
  /** validUntil is at most SHORT_LIVED_DAYS away. */
  shortLived: boolean;
  /** The connection presented a client certificate the server verified. */
  clientCertificate: boolean;
  /** Kerberos (GSSAPI) authenticated the connection: its tickets are short-lived. */
  kerberos: boolean;
  /** The role signs in with Amazon RDS's IAM tokens (a member of rds_iam), valid 15 minutes. */
  platformTokens: boolean;
  /** No password given, to PostgreSQL on this machine (a Unix socket or loopback): no credential to be unchanging; the machine's accounts are the boundary. */
  operatingSystemAccount: boolean;
}

/** Why this sign-in is an unchanging credential, as a production start's refusal says it, or undefined. */
export function unchangingSignInProblem(signIn: SignIn): string | undefined {
  if (signIn.clientCertificate || signIn.kerberos || signIn.platformTokens || signIn.operatingSystemAccount || signIn.shortLived) return undefined;
  const password =
    signIn.validUntil === null ? 'a password that never expires' : `a password valid until ${signIn.validUntil}, more than ${SHORT_LIVED_DAYS} days away`;
  return `SANDBOX=false needs a database sign-in that is not an unchanging password (ASVS 13.2.1): role ${signIn.role} signs in with ${password}; sign in with a client certificate (sslcert and sslkey in DATABASE_URL), with roles VALID UNTIL at most ${SHORT_LIVED_DAYS} days ahead as a secrets manager issues them (Vault's database secrets engine, through DATABASE_URL_FILE), or say DATABASE_CREDENTIALS_ACCEPTED=true to accept it`;
}

/** How the connection `db` hands out signed in, read from the server's own catalogues (all readable by an unprivileged role). */
async function readSignIn(db: Kysely<DB>): Promise<Omit<SignIn, 'operatingSystemAccount'>> {
  const { rows } = await sql<Omit<SignIn, 'operatingSystemAccount'>>`
    select r.rolname as role,
      case when r.rolvaliduntil = 'infinity' then null else r.rolvaliduntil::text end as "validUntil",
      coalesce(r.rolvaliduntil <= now() + make_interval(days => ${SHORT_LIVED_DAYS}), false) as "shortLived",
      exists (select 1 from pg_stat_ssl s where s.pid = pg_backend_pid() and s.client_dn is not null) as "clientCertificate",
      exists (select 1 from pg_stat_gssapi g where g.pid = pg_backend_pid() and g.gss_authenticated) as kerberos,
      exists (select 1 from pg_auth_members m join pg_roles iam on iam.oid = m.roleid where iam.rolname = 'rds_iam' and m.member = r.oid) as "platformTokens"
    from pg_roles r where r.rolname = current_user`.execute(db);
  return rows[0]!;
}

/** What a production start lacks in how it signs in to PostgreSQL; none in developer mode, on SQLite, or when the operator accepted it. */
export async function databaseSignInProblems(
  db: Kysely<DB>,
  config: Pick<Config, 'sandbox' | 'databaseUrl' | 'databaseCredentialsAccepted'>,
  env: Record<string, string | undefined>,
): Promise<string[]> {
  if (config.sandbox || config.databaseCredentialsAccepted || config.databaseUrl.startsWith('sqlite:')) return [];
  const signIn = await readSignIn(db);
  const passwordGiven = holdsPassword(config.databaseUrl) || !!env.PGPASSWORD;
  const problem = unchangingSignInProblem({ ...signIn, operatingSystemAccount: !passwordGiven && reachesOnlyThisMachine(config.databaseUrl) });
  return problem ? [problem] : [];
}
