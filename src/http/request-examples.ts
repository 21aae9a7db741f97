// The example body of each operation that takes one, as the API reference (/docs) offers it in
// "Try it out": each is accepted as it stands by a developer-mode account with the features the
// operation needs (test/http/api-reference-examples.test.ts sends every one). A generated example
// would be placeholder text ("string") for URLs, emails and amounts, and refused.
// Addresses use the reserved .example domain: nothing is ever delivered there.

import { DEMO_SUBSCRIPTION_ID } from '../app/demo-account.js';

export type ExampleBody = { readonly [name: string]: string | number | boolean | ExampleBody };

export const PAYMENT_EXAMPLE: ExampleBody = {
  amount: 1000,
  currency: 'CLP',
  subject: 'Order 42',
  transaction_id: 'INV-42',
  return_url: 'https://shop.example/orders/42/paid',
  cancel_url: 'https://shop.example/orders/42',
  notify_url: 'https://shop.example/notify',
};

export const REFUND_EXAMPLE: ExampleBody = { amount: 500 };

export const RECEIVER_EXAMPLE: ExampleBody = {
  admin_first_name: 'Ana',
  admin_last_name: 'Rojas',
  admin_email: 'ana@shop.example',
  country_code: 'CL',
  business_identifier: '76.123.456-0',
  business_category: 'Retail',
  business_name: 'Tienda Ejemplo SpA',
  business_phone: '+56 2 2345 6789',
  business_address_line_1: 'Av. Providencia 1234',
  business_address_line_2: 'Oficina 56',
  business_address_line_3: 'Santiago',
  contact_full_name: 'Ana Rojas',
  contact_job_title: 'Gerente',
  contact_email: 'contacto@shop.example',
  contact_phone: '+56 9 8765 4321',
  notify_url: 'https://shop.example/notify',
};

export const SUBSCRIPTION_EXAMPLE: ExampleBody = {
  name: 'Plan mensual',
  email: 'payer@shop.example',
  max_amount: 50000,
  currency: 'CLP',
  notify_url: 'https://shop.example/subscriptions/notify',
  return_url: 'https://shop.example/subscriptions/signed',
  cancel_url: 'https://shop.example/subscriptions/cancelled',
  service_reference: 'CUSTOMER-42',
};

/**
 * subscription_id names a subscription: the one POST /v1/automatic-payment/subscription answered, once
 * signed. The example's is the demo account's, ENABLED from its first start (app/demo-account.ts).
 */
export const CHARGE_INTENT_EXAMPLE: ExampleBody = {
  subscription_id: DEMO_SUBSCRIPTION_ID,
  amount: 9990,
  subject: 'Plan mensual, enero',
  body: 'Cargo mensual del plan',
  error_response_url: 'https://shop.example/subscriptions/charge-failed',
  custom: 'order-42',
  transaction_id: 'CHARGE-2026-01',
  notify_url: 'https://shop.example/notify',
};

/** An operation at DemoBank: the bank of developer-mode accounts. */
export const DESCRIPTOR_EXAMPLE: ExampleBody = {
  bank: 'Bawdf',
  params: {
    subject: 'Order 42',
    amount: 1000,
    currency_code: 'CLP',
    payer_email: 'payer@shop.example',
    payer_name: 'Ana Rojas',
    target_account_bank: 'Banco Estado',
    target_account_name: 'Tienda Ejemplo SpA',
    target_account_number: '000012345678',
    target_account_personal_identifier: '76.123.456-0',
  },
};

export const CLOCK_MOVE_EXAMPLE: ExampleBody = { advance: '1h' };

export const SANDBOX_ACCOUNT_EXAMPLE: ExampleBody = { name: 'Suite account' };

/** Notification faults only: sent as it stands, it leaves the account's API and bank as they were. */
export const FAULTS_EXAMPLE: ExampleBody = { seed: 42, notifications: { duplicate: 0.5, out_of_order: true } };

export const CREDIT_EXAMPLE: ExampleBody = {
  bank_reference: 'statement-2026-0001',
  account: 'collect-account-uuid',
  amount: 1000,
  currency: 'CLP',
  reference: 'gqzdy6chjne9',
  credited_at: '2026-01-15T13:00:00Z',
};

/** The example as a form sends it: every value as text. */
export const asForm = (example: ExampleBody): ExampleBody => Object.fromEntries(Object.entries(example).map(([name, value]) => [name, String(value)]));
