// Versioned migrations, applied in order on start and by `quipu migrate`. A new migration is a
// new file in ./migrations added to the list below; applied migrations are never edited.
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import * as core from './migrations/001-core.js';
import * as notifications from './migrations/002-notifications.js';
import * as oauth from './migrations/003-oauth.js';
import * as payerCycle from './migrations/004-payer-cycle.js';
import * as attemptsAwaitingBank from './migrations/005-attempts-awaiting-bank.js';
import * as staleAuthorizations from './migrations/006-stale-authorizations.js';
import * as oauthBrowserBinding from './migrations/007-oauth-browser-binding.js';
import * as bankPolling from './migrations/008-bank-polling.js';
import * as notificationDestinations from './migrations/009-notification-destinations.js';
import * as outbox from './migrations/010-outbox.js';
import * as jobs from './migrations/011-jobs.js';
import * as emails from './migrations/012-emails.js';
import * as fundDeliveries from './migrations/013-fund-deliveries.js';
import * as automaticPayments from './migrations/014-automatic-payments.js';
import * as operationDescriptors from './migrations/015-operation-descriptors.js';
import * as paymentList from './migrations/016-payment-list.js';
import * as dashboardUsers from './migrations/017-dashboard-users.js';
import * as operationList from './migrations/018-operation-list.js';
import * as signInThrottles from './migrations/019-sign-in-throttles.js';
import * as dashboardRoles from './migrations/020-dashboard-roles.js';
import * as twoFactor from './migrations/021-two-factor.js';
import * as auditLog from './migrations/022-audit-log.js';
import * as credentialGrace from './migrations/023-credential-grace.js';
import * as dashboardUserLifecycle from './migrations/024-dashboard-user-lifecycle.js';
import * as operatorGauges from './migrations/025-operator-gauges.js';
import * as accountClocks from './migrations/026-account-clocks.js';
import * as sandboxSnapshots from './migrations/027-sandbox-snapshots.js';
import * as sandboxFaults from './migrations/028-sandbox-faults.js';
import * as attemptUrls from './migrations/029-attempt-urls.js';
import * as requestLogs from './migrations/030-request-logs.js';
import * as oauthConsentReviews from './migrations/031-oauth-consent-reviews.js';
import * as notifyHosts from './migrations/032-notify-hosts.js';
import * as paymentSearchPendingList from './migrations/033-payment-search-pending-list.js';
import * as tokenLifetime from './migrations/034-token-lifetime.js';
import * as sandboxConfinement from './migrations/035-sandbox-confinement.js';
import * as attemptLanguage from './migrations/036-attempt-language.js';

/** Every migration by name, in order (tests start a database at an earlier one). */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001-core': core,
  '002-notifications': notifications,
  '003-oauth': oauth,
  '004-payer-cycle': payerCycle,
  '005-attempts-awaiting-bank': attemptsAwaitingBank,
  '006-stale-authorizations': staleAuthorizations,
  '007-oauth-browser-binding': oauthBrowserBinding,
  '008-bank-polling': bankPolling,
  '009-notification-destinations': notificationDestinations,
  '010-outbox': outbox,
  '011-jobs': jobs,
  '012-emails': emails,
  '013-fund-deliveries': fundDeliveries,
  '014-automatic-payments': automaticPayments,
  '015-operation-descriptors': operationDescriptors,
  '016-payment-list': paymentList,
  '017-dashboard-users': dashboardUsers,
  '018-operation-list': operationList,
  '019-sign-in-throttles': signInThrottles,
  '020-dashboard-roles': dashboardRoles,
  '021-two-factor': twoFactor,
  '022-audit-log': auditLog,
  '023-credential-grace': credentialGrace,
  '024-dashboard-user-lifecycle': dashboardUserLifecycle,
  '025-operator-gauges': operatorGauges,
  '026-account-clocks': accountClocks,
  '027-sandbox-snapshots': sandboxSnapshots,
  '028-sandbox-faults': sandboxFaults,
  '029-attempt-urls': attemptUrls,
  '030-request-logs': requestLogs,
  '031-oauth-consent-reviews': oauthConsentReviews,
  '032-notify-hosts': notifyHosts,
  '033-payment-search-pending-list': paymentSearchPendingList,
  '034-token-lifetime': tokenLifetime,
  '035-sandbox-confinement': sandboxConfinement,
  '036-attempt-language': attemptLanguage,
};

export interface MigrationReport {
  applied: string[];
}

/**
 * The database holds exactly the migrations above, so there is nothing to run: Kysely's migrator,
 * which first looks up every table of the database and takes its lock (several queries at every
 * start of every command), then is not started. Anything else (a new database, one a migration
 * behind or ahead) goes to the migrator, which applies or refuses as before.
 */
async function upToDate(db: Kysely<any>, migrations: Readonly<Record<string, Migration>>): Promise<boolean> {
  const names = Object.keys(migrations);
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const applied = new Set(rows.map((row) => row.name));
    return rows.length === names.length && names.every((name) => applied.has(name));
  } catch {
    // No migration table yet.
    return false;
  }
}

/** `migrations`: the API database's by default; the request log's own file has its own (request-log-file.ts). */
export async function migrateToLatest(db: Kysely<any>, migrations: Readonly<Record<string, Migration>> = MIGRATIONS): Promise<MigrationReport> {
  if (await upToDate(db, migrations)) return { applied: [] };
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const failed = results.find((r) => r.status === 'Error');
  if (failed) throw new Error(`migration ${failed.migrationName} failed`);
  return { applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
