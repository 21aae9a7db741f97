// A collection account (merchant) as the use cases see it.

export interface MerchantFeatures {
  /** Contracted payment confirmation (POST .../confirm). */
  confirm: boolean;
  /** Contracted the integrator feature: may create receivers (child accounts). */
  integrator: boolean;
  /** Collects in a provider account, so paid payments can be refunded before delivery. */
  refunds: boolean;
  /** Enabled for contract_url: payments that sign a PDF contract. */
  contractUrl: boolean;
  /** A payment-service provider: every payment names its end merchant (psp_client_merchant_name). */
  psp: boolean;
}

export const FEATURE_NAMES: readonly (keyof MerchantFeatures)[] = ['confirm', 'integrator', 'refunds', 'contractUrl', 'psp'];

/** A credential replaced by a rotation, accepted until `until` (wall clock ms). */
export interface GraceCredential {
  /** The secret itself, or the API key's hash. */
  value: string;
  until: number;
}

/** The value of a replaced credential if its grace period has not ended. */
export const inGrace = (credential: GraceCredential | null, nowMs: number): string | undefined =>
  credential !== null && nowMs < credential.until ? credential.value : undefined;

/**
 * Whether the receiver secret of this generation (Merchant.secretGeneration when it was current)
 * still authenticates the account at `nowMs` (wall clock): the current secret, or the one it
 * replaced while its grace period lasts. What a secret obtained lives no longer than it does.
 */
export function secretAuthenticates(merchant: Pick<Merchant, 'secretGeneration' | 'previousSecret'>, generation: number, nowMs: number): boolean {
  if (generation === merchant.secretGeneration) return true;
  return generation === merchant.secretGeneration - 1 && inGrace(merchant.previousSecret, nowMs) !== undefined;
}

/** Grace periods a rotation may give the credential it replaces: at most a month, as the peers allow. */
export const MAX_CREDENTIAL_GRACE_MS = 30 * 24 * 3_600_000;

export interface Merchant {
  receiverId: number;
  name: string;
  developer: boolean;
  /** The receiver secret (40 hex), decrypted: it signs notifications and v2 requests. */
  secret: string;
  /** The secret it replaced, while its grace period lasts: v2 requests and OAuth clients may still use it. */
  previousSecret: GraceCredential | null;
  /** Counts the rotations of the secret; the replaced one in its grace is of the generation before. */
  secretGeneration: number;
  /** The hash of the API key it replaced, while its grace period lasts. */
  previousApiKey: GraceCredential | null;
  notifyUrl: string | null;
  /** The hosts it registered for notifications (notify-destinations.ts hostPattern entries): with NOTIFY_URL_ACCOUNT_HOSTS, the only ones notified besides its notify_url's. */
  notifyHosts: string[];
  notifyApiVersion: string;
  /** Where accountability reports are sent when the account's funds are delivered. */
  renditionUrl: string | null;
  features: MerchantFeatures;
  /** The integrator that created this account, if any. */
  parentReceiverId: number | null;
  /** Ids of the payment methods this account offers. */
  paymentMethods: string[];
  /** Emails of the users allowed to be responsible for a collection. */
  users: string[];
  /** Destination accounts; the first is the default. */
  collectAccounts: string[];
  countryCode: string;
}

export const NOTIFY_API_VERSIONS = ['1.3', '3.0'] as const;
export const DEFAULT_NOTIFY_API_VERSION = '3.0';
