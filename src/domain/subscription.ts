// A subscription of the automatic payment API as the use cases see it: the merchant's request, the
// state of its mandate (domain/mandate-status.ts) and, once signed, the payer's bank and account.
import type { MandateState } from './mandate-status.js';

export interface Subscription {
  subscriptionId: string;
  receiverId: number;
  name: string;
  email: string;
  /** Units of 1/10000 of `currency`: no charge may exceed it. */
  maxAmount: number;
  currency: string;
  notifyUrl: string;
  returnUrl: string;
  cancelUrl: string;
  serviceReference: string | null;
  imageUrl: string | null;
  description: string | null;
  /** Created by a developer-mode account: signed at DemoBank only. */
  developer: boolean;
  state: MandateState;
  /** The bank the payer signed at (a bank id of the payment API), null before. */
  bankId: string | null;
  payerIdentifier: string | null;
  payerAccount: string | null;
  payerName: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** `customer_bank_code` before the payer signed at a bank. */
export const NO_BANK = 'no-bank';

/** The page where the payer signs the mandate: the provider's path, /pac-manager/<uuid>. */
export function mandatePath(subscriptionId: string): string {
  return `/pac-manager/${subscriptionId}`;
}

export function subscriptionRedirectUrl(baseUrl: string, subscriptionId: string): string {
  return `${baseUrl}${mandatePath(subscriptionId)}`;
}
