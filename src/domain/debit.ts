// The debit that collects a charge intent from the payer's account under their mandate. A debit
// reaches its bank at most once: it is claimed (`submitting`) and that claim is durable before the
// bank hears of it, and a debit whose answer never came is asked about, never sent again blindly.

export const DEBIT_STATES = [
  /** Waiting for the background job to submit it to the mandate's bank. */
  'due',
  /** Claimed by a process that is asking the bank now. */
  'submitting',
  /** The bank accepted it and settles it on its settlement date. */
  'submitted',
  /** The bank's answer never came (timeout, crash): only the bank can say whether it has it. */
  'uncertain',
  /** The bank settled it: its credit reconciles the payment. */
  'settled',
  /** The bank refused or failed it; the merchant was told at error_response_url. */
  'failed',
  /** The merchant deleted the charge's payment before it was submitted. */
  'cancelled',
] as const;
export type DebitState = (typeof DEBIT_STATES)[number];

export interface Debit {
  debitId: string;
  paymentId: string;
  receiverId: number;
  subscriptionId: string;
  bankId: string;
  amount: number;
  currency: string;
  errorResponseUrl: string;
  state: DebitState;
  failure: string | null;
  /** Developer clock: when the job next looks at it (due, or the bank's settlement date, or a retry of a question). */
  nextCheckAt: Date;
  submittedAt: Date | null;
  settledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** How long after an unanswered question the bank is asked again (developer clock). */
export const DEBIT_QUESTION_RETRY_MS = 60_000;

/**
 * The error_message sent to error_response_url: the bank's words and what the merchant can do,
 * since Quipu (like the provider) never retries a charge by itself.
 */
export function debitErrorMessage(bankMessage: string): string {
  return `${bankMessage}. The charge will not be retried automatically: create a new charge intent to try again.`;
}
