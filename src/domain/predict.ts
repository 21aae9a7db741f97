// Predicting whether a transfer will go through, from the payer's bank limits and whether the
// payer has paid this account before (banks limit transfers to recipients added recently).
import type { Bank } from './banks.js';

export const PREDICTION_RESULTS = [
  'ok',
  'new_destinatary_amount_exceeded',
  'max_amount_exceeded',
  'new_destinatary_cool_down',
  'not_available_account',
] as const;
export type PredictionResult = (typeof PREDICTION_RESULTS)[number];

export interface Prediction {
  result: PredictionResult;
  maxAmount: number;
  newDestinataryMaxAmount: number;
  /** When the new-recipient restriction ends (or would end, if the recipient were added now). */
  coolDownDate: Date;
}

export interface PayerHistory {
  /** When this payer first paid this account, if ever. */
  firstPaidAt: Date | null;
}

/**
 * `bank` undefined: a bank this account cannot pay from, answered as one that cannot take the
 * payment, with no limits to report. `amount` in units; any number, as the query is only a question.
 */
export function predict(bank: Bank | undefined, amount: number, currency: string, history: PayerHistory, now: Date): Prediction {
  if (bank === undefined) return { result: 'not_available_account', maxAmount: 0, newDestinataryMaxAmount: 0, coolDownDate: history.firstPaidAt ?? now };
  const coolDownMs = bank.coolDownHours * 3_600_000;
  const coolDownDate = new Date((history.firstPaidAt ?? now).getTime() + coolDownMs);
  const base = { maxAmount: bank.maxAmount, newDestinataryMaxAmount: bank.newDestinataryMaxAmount, coolDownDate };
  if (currency !== bank.currency) return { ...base, result: 'not_available_account' };
  if (amount > bank.maxAmount) return { ...base, result: 'max_amount_exceeded' };
  if (amount > bank.newDestinataryMaxAmount) {
    if (history.firstPaidAt === null) return { ...base, result: 'new_destinatary_amount_exceeded' };
    if (now < coolDownDate) return { ...base, result: 'new_destinatary_cool_down' };
  }
  return { ...base, result: 'ok' };
}
