// Table shapes as Kysely sees them. Both databases store the same types: integers for booleans
// (0/1), money (units of 1/10000) and instants (milliseconds since the epoch); text for the rest.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { AuditAction, AuditActorKind, AuditOutcome } from '../domain/audit.js';
import type { DashboardRole } from '../domain/dashboard-roles.js';
import type { RecordedCredit } from '../domain/bank-credit.js';
import type { MandateSigning } from '../domain/mandate-signing.js';
import type { Payment } from '../domain/payment.js';
import type { ColumnsOf } from './columns-of.js';

export interface MerchantsTable {
  receiver_id: number;
  name: string;
  secret_enc: string;
  api_key_hash: string;
  /** The API key sealed (the dashboard shows it again); null for keys issued before migration 017. */
  api_key_enc: string | null;
  /** A key rotated with a grace period, working until previous_api_key_until (wall clock ms). */
  previous_api_key_hash: string | null;
  previous_api_key_until: number | null;
  /** A secret rotated with a grace period (sealed), verifying until previous_secret_until. */
  previous_secret_enc: string | null;
  previous_secret_until: number | null;
  /** Counts the rotations of the secret: the generation a token's secret had (oauth_tokens) is checked against it (migration 034). */
  secret_generation: number;
  developer: number;
  notify_url: string | null;
  /** JSON array of text: the hosts the account registered for notifications (migration 032). */
  notify_hosts: string;
  notify_api_version: string;
  /** Where accountability reports are sent (funds deliveries). */
  rendition_url: string | null;
  feature_confirm: number;
  feature_integrator: number;
  feature_refunds: number;
  feature_contract_url: number;
  feature_psp: number;
  parent_receiver_id: number | null;
  /** JSON arrays of text */
  payment_methods: string;
  users: string;
  collect_accounts: string;
  country_code: string;
  /** JSON object: the receiver-create fields of a child account */
  profile: string;
  /** Developer mode: how far the account's own clock runs ahead of real time; null while it follows the installation's. */
  clock_offset_ms: number | null;
  /** Counts the moves and resets of the account's clock, so a process never goes back to an older read. */
  clock_version: Generated<number>;
  /** Developer mode: the account's faults on demand as JSON (domain/sandbox-faults.ts), null for none. */
  sandbox_faults: string | null;
  /** The faults' counters, shared by every process: API requests still to refuse, still to drop, and draws taken from the seed. */
  faults_refusals_left: number;
  faults_drops_left: number;
  faults_draws: number;
  /** 1 for an account POST /sandbox/accounts (or `quipu sandbox create`) made: the only ones the sandbox deletes, records and restores (migration 035). */
  sandbox_made: number;
  created_at: number;
  updated_at: number;
}

/**
 * A Payment's fields (domain/payment.ts), and what only the store keeps. `version` is incremented by
 * every state change: updates are conditional on it.
 */
export interface PaymentsTable extends ColumnsOf<Payment> {
  /** When the payer is reminded next (send_reminders, developer clock); null when no reminder is to come. */
  next_reminder_at: number | null;
  /** The fund delivery that paid this payment's funds out to the merchant. */
  fund_delivery_id: string | null;
  deleted_at: number | null;
}

/** Funds paid out to a merchant together: its paid payments of one currency whose funds were due at one instant. */
export interface FundDeliveriesTable {
  delivery_id: string;
  receiver_id: number;
  currency: string;
  /** When the funds were due to the merchant (developer clock): the payments' funds_delivery_at. */
  delivered_at: number;
  /** The sum of the payments' net amounts (amount less refunded). */
  total: number;
  payment_count: number;
  created_at: number;
}

export interface RefundsTable {
  refund_id: string;
  payment_id: string;
  receiver_id: number;
  amount: number;
  created_at: number;
}

export interface IdempotencyKeysTable {
  receiver_id: number;
  idem_key: string;
  request_hash: string;
  /** null while the first request runs */
  response_status: number | null;
  response_body: string | null;
  locked_until: number;
  expires_at: number;
}

export interface InvalidationsTable {
  id: Generated<number>;
  topic: string;
  item: string;
  created_at: number;
}

/** A record of the audit log (domain/audit.ts). */
export interface AuditLogTable {
  seq: number;
  at: number;
  actor_kind: AuditActorKind;
  actor: string;
  receiver_id: number | null;
  action: AuditAction;
  target: string | null;
  outcome: AuditOutcome;
  address: string | null;
  prev_hash: string;
  hash: string;
}

export interface SettingsTable {
  name: string;
  value: string;
}

/** One row per recurring background job (src/jobs/jobs.ts): when it is next due and which process holds it. */
export interface JobsTable {
  name: string;
  /** Developer-clock milliseconds: due at or after this. */
  run_at: number;
  lease_id: string | null;
  /** Wall-clock milliseconds: leases measure real time, not the developer clock. */
  locked_until: number | null;
  /** The process (host:pid) that holds the lease, or held it last. */
  runner: string | null;
  /** Runs started, those cut short by a dying process included. */
  runs: number;
  last_started_at: number | null;
  last_finished_at: number | null;
  /** The error of the latest run that failed, kept after later runs succeed; last_error_at says when. */
  last_error: string | null;
  last_error_at: number | null;
}

/** An account whose clock moved (or whose snapshot was restored): its work waits for a job runner to run it alone (jobs/runner.ts). */
export interface AccountWakesTable {
  receiver_id: number;
  /** Counts the wakes: a run ends the wake only if no other came meanwhile. */
  version: number;
  lease_id: string | null;
  /** Wall-clock milliseconds, as a job's lease. */
  locked_until: number | null;
}

/** The outbox: one row per message Quipu sends (domain/message-kinds.ts), its exact body and its delivery state. */
export interface MessagesTable {
  message_id: string;
  receiver_id: number;
  /** A kind of domain/message-kinds.ts */
  kind: string;
  /** 'payment', ...: what subject_id names */
  subject_type: string;
  subject_id: string;
  /** An http(s) URL, or mailto:<address> */
  url: string;
  /** Requests in flight are capped per destination: the origin of an http URL, 'smtp' for emails. */
  destination: string;
  content_type: string;
  body: string;
  /** 'none' or 'khipu-signature' (computed per attempt, under the receiver secret) */
  signing: string;
  /** 'pending', 'delivered', 'exhausted' or 'cancelled' (withdrawn unsent) */
  status: string;
  attempts: number;
  round_step: number;
  round_started_at: number;
  next_attempt_at: number | null;
  lease_id: string | null;
  /** Wall-clock milliseconds: leases measure real time, not the developer clock. */
  locked_until: number | null;
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
  /** Not sent from this instant on (developer clock), but withdrawn; null: sent however late. */
  valid_until: number | null;
}

export interface MessageAttemptsTable {
  attempt_id: Generated<number>;
  message_id: string;
  receiver_id: number;
  number: number;
  /** 'first', 'retry' or 'resend' */
  trigger: string;
  /** When the attempt was due (developer clock); it starts later if the worker was busy or the clock jumped. */
  due_at: number;
  started_at: number;
  latency_ms: number;
  /** 'delivered' or 'failed' */
  outcome: string;
  /** The HTTP status, or the SMTP server's reply code. */
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  /** Where an attempt sent elsewhere went (a resend to another URL); null: the message's own URL. */
  url: Generated<string | null>;
}

/** A view: the payment notifications among the messages, with the columns of the table they were before the outbox held every kind. */
export type NotificationsView = Pick<
  MessagesTable,
  | 'receiver_id'
  | 'url'
  | 'destination'
  | 'content_type'
  | 'body'
  | 'status'
  | 'attempts'
  | 'round_step'
  | 'round_started_at'
  | 'next_attempt_at'
  | 'lease_id'
  | 'locked_until'
  | 'delivered_at'
  | 'created_at'
  | 'updated_at'
> & { notification_id: string; payment_id: string; api_version: string };

/** A view: the attempts of the payment notifications. */
export type NotificationAttemptsView = Omit<MessageAttemptsTable, 'attempt_id' | 'message_id' | 'status_code'> & {
  attempt_id: number;
  notification_id: string;
  http_status: number | null;
};

/** A payer's attempt to pay through a bank (see domain/payment-attempt.ts). */
export interface PaymentAttemptsTable {
  attempt_id: string;
  payment_id: string;
  receiver_id: number;
  bank_id: string;
  payer_email: string;
  personal_identifier: string | null;
  account_number: string | null;
  payer_name: string | null;
  state: string;
  failure: string | null;
  started_at: number;
  expires_at: number;
  updated_at: number;
  /** The language of the payer pages the attempt was started from; null before migration 036. */
  payer_lang: string | null;
}

/** A credit to a collection account reported by a bank or an operator; kept whether or not it matched (domain/bank-credit.ts). */
export type BankCreditsTable = ColumnsOf<RecordedCredit>;

/** Token signing keys: the newest unretired one signs; retired ones verify until their tokens expire. */
export interface OAuthKeysTable {
  kid: string;
  alg: string;
  /** JSON: the public JWK as the JWKS publishes it */
  public_jwk: string;
  /** PKCS#8 PEM sealed with the secret box */
  private_key_enc: string;
  created_at: number;
  retired_at: number | null;
}

export interface OAuthRedirectUrisTable {
  receiver_id: number;
  redirect_uri: string;
  created_at: number;
}

/** A user's consent to a client at one institution; its subject is the id_token's stable sub. */
export interface OAuthConsentsTable {
  consent_id: string;
  receiver_id: number;
  institution_id: string;
  /** The user at the institution (a normalised RUT), so the institution's reports can name it. */
  user_id: string;
  subject: string;
  created_at: number;
  updated_at: number;
}

/** A payer's review of the consents they gave at one institution (app/consent-review.ts). */
export interface OAuthConsentReviewsTable {
  review_id: string;
  institution_id: string;
  /** SHA-256 of the secret of the browser that opened the review. */
  browser_hash: string;
  /** 'login', 'review' (signed in) or 'failed' */
  status: string;
  /** The user who signed in at the institution, as the flow records it. */
  user_id: string | null;
  /** The current step must be finished by then (developer clock). */
  step_deadline: number;
  created_at: number;
}

/** One authorization code flow, from the request through sign-in and consent to its code. */
export interface OAuthAuthorizationsTable {
  authorization_id: string;
  receiver_id: number;
  redirect_uri: string;
  response_mode: string;
  state: string | null;
  nonce: string | null;
  custom: string | null;
  institution_id: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  /** 'login', 'consent', 'code' (issued), 'done' (redeemed) or 'failed' */
  status: string;
  /** The current step must be finished by then (developer clock). */
  step_deadline: number;
  /** The user who signed in at the institution (a RUT as the bank writes it). */
  user_id: string | null;
  authenticated_at: number | null;
  consent_id: string | null;
  /** SHA-256 of the code: the code itself is never stored. */
  code_hash: string | null;
  code_expires_at: number | null;
  redeemed_at: number | null;
  created_at: number;
  /** SHA-256 of the secret in the cookie of the browser that started the flow (null: a flow from before binding). */
  browser_hash: string | null;
}

/** Issued access tokens: the jti and what revocation needs, never the token. */
export interface OAuthTokensTable {
  jti: string;
  receiver_id: number;
  grant_type: string;
  authorization_id: string | null;
  consent_id: string | null;
  issued_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** The generation of the receiver secret the client authenticated with when the token was issued (merchants.secret_generation). */
  secret_generation: number;
  /** When it was issued on the wall clock (issued_at is on the account's clock): it lives at most a token lifetime from then. */
  wall_issued_at: number;
}

export interface SubscriptionsTable {
  subscription_id: string;
  receiver_id: number;
  name: string;
  email: string;
  max_amount: number;
  currency: string;
  notify_url: string;
  return_url: string;
  cancel_url: string;
  service_reference: string | null;
  image_url: string | null;
  description: string | null;
  developer: number;
  /** domain/mandate-status.ts MANDATE_STATES */
  state: string;
  bank_id: string | null;
  payer_identifier: string | null;
  payer_account: string | null;
  payer_name: string | null;
  /** Incremented by every change: updates are conditional on it. */
  version: number;
  created_at: number;
  updated_at: number;
}

/** The history of a subscription's mandate: each change, why and who caused it. */
export interface SubscriptionChangesTable {
  change_id: string;
  subscription_id: string;
  event: string;
  from_state: string;
  to_state: string;
  /** payer, bank or developer */
  origin: string;
  reason: string;
  changed_at: number;
}

/** A payer's session signing a mandate at a bank (domain/mandate-signing.ts): started (bank chosen), authenticated, signing, signed, rejected. */
export type MandateSigningsTable = ColumnsOf<MandateSigning>;

/** The debit that collects a charge intent's payment (domain/debit.ts). */
export interface DebitsTable {
  debit_id: string;
  payment_id: string;
  receiver_id: number;
  subscription_id: string;
  bank_id: string;
  amount: number;
  currency: string;
  error_response_url: string;
  state: string;
  failure: string | null;
  next_check_at: number;
  submitted_at: number | null;
  settled_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A person who signs in to an account's dashboard. */
export interface DashboardUsersTable {
  user_id: string;
  receiver_id: number;
  email: string;
  /** domain/password-hash.ts: scrypt with its parameters and salt */
  password_hash: string;
  /** domain/dashboard-roles.ts */
  role: Generated<DashboardRole>;
  /** runtime secret box: the base32 TOTP secret, when the user signs in with a second factor */
  totp_secret_enc: string | null;
  /** the last 30-second step a code was accepted at: no code of it or before is taken again */
  totp_last_step: number | null;
  /** set while the password is one Quipu generated: it signs in until then, and only to be replaced (domain/dashboard-session.ts) */
  password_expires_at: number | null;
  /** set while the operator has disabled the user: no sign-in, no session */
  disabled_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A single-use recovery code of a user's second factor, by its hash (domain/two-factor.ts). */
export interface DashboardRecoveryCodesTable {
  code_hash: string;
  user_id: string;
  used_at: number | null;
}

/** A signed-in dashboard session; instants on the wall clock (the developer clock does not age it). */
export interface DashboardSessionsTable {
  /** SHA-256 of the cookie's token */
  token_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  /** 1 while the password was right and the second factor's code is still due: no page opens */
  second_factor_due: Generated<number>;
  /** the client's address at sign-in (TRUST_PROXY), shown on the user's sessions page */
  address: string | null;
  /** the browser's User-Agent at sign-in, cut to 200 characters */
  user_agent: string | null;
}

/** A subject of sign-in throttling (domain/sign-in-throttle.ts): its failures in a row and its delay. */
export interface SignInThrottlesTable {
  subject: string;
  failures: number;
  last_failure_at: number;
  blocked_until: number;
}

/** A key of the operation descriptor ring (domain/operation-descriptor.ts): the newest unretired one seals. */
export interface DescriptorKeysTable {
  kid: string;
  /** The 32-byte AES-256-GCM key, base64, sealed with the secret box */
  key_enc: string;
  created_at: number;
  retired_at: number | null;
}

/** An operation issued with a descriptor, run once by a payer (domain/operation.ts). */
export interface OperationsTable {
  operation_id: string;
  receiver_id: number;
  /** The descriptor key it was sealed with */
  key_id: string;
  /** The origin bank as the merchant named it */
  bank: string;
  /** The descriptor as issued: its params are readable only with the key */
  description: string;
  /** issued, authenticated, running, ok, error or warning */
  state: string;
  /** The bank it was run at, once the payer signed in */
  bank_id: string | null;
  payer_identifier: string | null;
  payer_account: string | null;
  payer_name: string | null;
  failure: string | null;
  /** JSON: [{name, type, timestamp}] */
  events: string;
  expires_at: number;
  created_at: number;
  updated_at: number;
}

/** A recorded state of a sandbox account (store/account-snapshots.ts). */
export interface SandboxSnapshotsTable {
  snapshot_id: string;
  receiver_id: number;
  /** Wall-clock milliseconds. */
  created_at: number;
  row_count: number;
}

/** One table's rows of a snapshot's account: a JSON array of row objects, with the columns they were recorded with. */
export interface SandboxSnapshotTablesTable {
  snapshot_id: string;
  table_name: string;
  columns: string;
  content: string;
  row_count: number;
}

/** One authenticated API request of an account (migration 030): what the dashboard's request log and `quipu listen` show. */
export interface RequestLogsTable {
  request_log_id: Generated<number>;
  receiver_id: number;
  /** When it was answered, on the account's clock. */
  at: number;
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  /** The answer's Quipu-Ignored-Fields header; null when nothing was ignored. */
  ignored_fields: string | null;
  /** The beginning of a 4xx or 5xx answer's body; null for any other. */
  error_body: string | null;
}

export interface DB {
  merchants: MerchantsTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  fund_deliveries: FundDeliveriesTable;
  idempotency_keys: IdempotencyKeysTable;
  invalidations: InvalidationsTable;
  settings: SettingsTable;
  jobs: JobsTable;
  account_wakes: AccountWakesTable;
  messages: MessagesTable;
  message_attempts: MessageAttemptsTable;
  notifications: NotificationsView;
  notification_attempts: NotificationAttemptsView;
  payment_attempts: PaymentAttemptsTable;
  bank_credits: BankCreditsTable;
  oauth_keys: OAuthKeysTable;
  oauth_redirect_uris: OAuthRedirectUrisTable;
  oauth_consents: OAuthConsentsTable;
  oauth_authorizations: OAuthAuthorizationsTable;
  oauth_consent_reviews: OAuthConsentReviewsTable;
  oauth_tokens: OAuthTokensTable;
  subscriptions: SubscriptionsTable;
  subscription_changes: SubscriptionChangesTable;
  mandate_signings: MandateSigningsTable;
  debits: DebitsTable;
  descriptor_keys: DescriptorKeysTable;
  operations: OperationsTable;
  dashboard_users: DashboardUsersTable;
  dashboard_sessions: DashboardSessionsTable;
  dashboard_recovery_codes: DashboardRecoveryCodesTable;
  audit_log: AuditLogTable;
  sign_in_throttles: SignInThrottlesTable;
  sandbox_snapshots: SandboxSnapshotsTable;
  sandbox_snapshot_tables: SandboxSnapshotTablesTable;
  request_logs: RequestLogsTable;
}

export type MerchantRow = Selectable<MerchantsTable>;
export type NewMerchantRow = Insertable<MerchantsTable>;
export type PaymentRow = Selectable<PaymentsTable>;
export type NewPaymentRow = Insertable<PaymentsTable>;
export type PaymentUpdate = Updateable<PaymentsTable>;
export type FundDeliveryRow = Selectable<FundDeliveriesTable>;
export type MessageRow = Selectable<MessagesTable>;
export type JobRow = Selectable<JobsTable>;
export type MessageAttemptRow = Selectable<MessageAttemptsTable>;
export type PaymentAttemptRow = Selectable<PaymentAttemptsTable>;
export type BankCreditRow = Selectable<BankCreditsTable>;
export type OAuthKeyRow = Selectable<OAuthKeysTable>;
export type OAuthAuthorizationRow = Selectable<OAuthAuthorizationsTable>;
export type OAuthConsentReviewRow = Selectable<OAuthConsentReviewsTable>;
export type SubscriptionRow = Selectable<SubscriptionsTable>;
export type SubscriptionUpdate = Updateable<SubscriptionsTable>;
export type MandateSigningRow = Selectable<MandateSigningsTable>;
export type DebitRow = Selectable<DebitsTable>;
export type DebitUpdate = Updateable<DebitsTable>;
export type DashboardUserRow = Selectable<DashboardUsersTable>;
export type DescriptorKeyRow = Selectable<DescriptorKeysTable>;
export type OperationRow = Selectable<OperationsTable>;
export type OperationUpdate = Updateable<OperationsTable>;
export type RequestLogRow = Selectable<RequestLogsTable>;
export type NewRequestLogRow = Insertable<RequestLogsTable>;
