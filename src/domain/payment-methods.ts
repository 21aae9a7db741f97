// Payment methods an account can offer. The ids are what the payment-methods operation lists and
// what mandatory_payment_method accepts (the official plugins match these upper-case ids);
// `paymentMethod` is the value a paid payment reports in its payment_method field.

export interface PaymentMethodInfo {
  id: string;
  name: string;
  paymentMethod: 'simplified_transfer' | 'regular_transfer';
}

export const PAYMENT_METHODS: readonly PaymentMethodInfo[] = [
  { id: 'SIMPLIFIED_TRANSFER', name: 'Transferencia simplificada', paymentMethod: 'simplified_transfer' },
  { id: 'REGULAR_TRANSFER', name: 'Transferencia normal', paymentMethod: 'regular_transfer' },
];

export const PAYMENT_METHOD_IDS = PAYMENT_METHODS.map((m) => m.id);

/**
 * The method an id names. The provider's own OpenAPI example writes the lower-case
 * `simplified_transfer`, so the match ignores case.
 */
export function findPaymentMethod(id: string): PaymentMethodInfo | undefined {
  const upper = id.toUpperCase();
  return PAYMENT_METHODS.find((m) => m.id === upper);
}
