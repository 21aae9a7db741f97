// One line of a payment, its id and status: what the commands that act on a payment print after.
import type { Payment } from '../domain/payment.js';

export const showPayment = (payment: Payment) => console.log(`${payment.paymentId}  ${payment.status}/${payment.statusDetail}`);
