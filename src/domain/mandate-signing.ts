// A payer's session signing a mandate at their bank, the mandate's twin of a payment attempt: the
// payer picks a bank, signs in, then signs with the bank's challenge. A session lasts 30 minutes;
// the payer may start another while the subscription can still be signed.

export const SIGNING_DURATION_MS = 30 * 60_000;

export const SIGNING_STATES = [
  /** The payer chose a bank and has not signed in yet. */
  'started',
  /** The bank accepted the payer's credentials. */
  'authenticated',
  /** A request is asking the bank to sign: no second request may do the same. */
  'signing',
  /** The bank took the signature (it activated the mandate or will). */
  'signed',
  /** The bank rejected the mandate. */
  'rejected',
] as const;
export type SigningState = (typeof SIGNING_STATES)[number];

export interface MandateSigning {
  signingId: string;
  subscriptionId: string;
  bankId: string;
  state: SigningState;
  personalIdentifier: string | null;
  accountNumber: string | null;
  payerName: string | null;
  failure: string | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export function isSigningOpen(signing: Pick<MandateSigning, 'expiresAt'>, now: Date): boolean {
  return now < signing.expiresAt;
}
