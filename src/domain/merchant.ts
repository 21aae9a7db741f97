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

export interface Merchant {
  receiverId: number;
  name: string;
  developer: boolean;
  /** The receiver secret (40 hex), decrypted: it signs notifications and v2 requests. */
  secret: string;
  notifyUrl: string | null;
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
