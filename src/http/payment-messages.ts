// The `message` of a successful delete, confirm or refund, the same on every API surface.
import type { RefundResult } from '../app/refund-payment.js';
import { formatDateTime } from '../domain/dates.js';
import { formatAmount } from '../domain/money.js';

export const DELETED_MESSAGE = 'Payment deleted';

export const confirmedMessage = (delivery: Date): string => `Payment confirmed; its funds will be delivered on ${formatDateTime(delivery)}`;

export const refundMessage = (refund: RefundResult): string =>
  `${refund.full ? 'Full' : 'Partial'} refund of ${formatAmount(refund.amount)} ${refund.currency} accepted`;
