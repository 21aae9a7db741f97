// THE format of a sandbox account's fixtures (the `fixtures` member of POST /sandbox/accounts, the
// file of `quipu sandbox create --fixtures`) and of what the answer says was made. The JSON Schema
// docs/sandbox-fixtures.schema.json is this schema (a test holds them equal); /docs shows it too.
// Values the use cases check (amounts, currencies, URLs) are only typed here: their refusal names
// the fixture's path all the same.
import { type TSchema, Type } from '@sinclair/typebox';
import { CHARGE_FIXTURE_STATES, MAX_FIXTURES_OF_A_KIND, PAYMENT_FIXTURE_STATES, SUBSCRIPTION_FIXTURE_STATES } from '../../domain/sandbox-fixtures.js';

const states = (values: readonly string[], description: string) => Type.String({ enum: [...values], description });
const list = <T extends TSchema>(item: T, what: string) => Type.Optional(Type.Array(item, { maxItems: MAX_FIXTURES_OF_A_KIND, description: what }));
const strict = (description: string) => ({ additionalProperties: false, description });

const ref = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_.:-]+$',
  description: 'Your name for the fixture, unique in the request: the answer gives each ref its ids',
});
const url = (description: string) => Type.Optional(Type.String({ maxLength: 500, description }));

const PaymentFixture = Type.Object(
  {
    ref,
    status: states(
      PAYMENT_FIXTURE_STATES,
      'pending: created; verifying: paid at DemoBank with an uncertain result (until POST /sandbox/demobank/payments/{id}/confirm|fail); done: paid at DemoBank and reconciled; reversed: done, then refunded in full (needs "refunds": true); expired: created a day and an hour ago with a day to be paid',
    ),
    amount: Type.Optional(Type.Number({ description: 'Default 1000' })),
    currency: Type.Optional(Type.String({ description: 'Default CLP' })),
    subject: Type.Optional(Type.String({ description: 'Default "Fixture <ref>"' })),
    transaction_id: Type.Optional(Type.String()),
    payer_email: Type.Optional(Type.String()),
    notify_url: url("Where its notification goes (default: the account's notify_url)"),
  },
  strict('A payment of POST /v3/payments, taken to its status by the payer at DemoBank'),
);

const SubscriptionFixture = Type.Object(
  {
    ref,
    status: states(
      SUBSCRIPTION_FIXTURE_STATES,
      'Its mandate: created (not signed, DISABLED); signed (waiting for the bank, SIGNED: DemoBank approves it one bank business day later on the account clock); enabled (ENABLED); rejected (by the bank, DISABLED); revoked (by its payer after it was enabled, DISABLED)',
    ),
    name: Type.Optional(Type.String({ description: 'Default "Fixture <ref>"' })),
    email: Type.Optional(Type.String({ description: "The payer's email (default payer@demobank.test)" })),
    max_amount: Type.Optional(Type.Number({ description: 'Default 50000' })),
    currency: Type.Optional(Type.String({ description: 'Default CLP' })),
    notify_url: url("Where its signing notifications go (default: the account's notify_url)"),
  },
  strict('A subscription of the automatic payment API, its mandate signed (or not) at DemoBank'),
);

const ChargeFixture = Type.Object(
  {
    ref,
    subscription: Type.String({ minLength: 1, maxLength: 64, description: 'The ref of an enabled subscription of this request' }),
    status: states(
      CHARGE_FIXTURE_STATES,
      "due: created, its debit left to the debit job (submitted within seconds, settled on the account clock's next bank business day); paid: settled by DemoBank and reconciled (done); failed: DemoBank failed its debit (pending, error_response_url told)",
    ),
    amount: Type.Optional(Type.Number({ description: "Default 1000, at most the subscription's max_amount" })),
    subject: Type.Optional(Type.String({ description: 'Default "Fixture <ref>"' })),
    transaction_id: Type.Optional(Type.String({ description: 'Default the ref' })),
    notify_url: url("Default: the account's notify_url"),
    error_response_url: url('Default: the notify_url'),
  },
  strict('A charge intent on a subscription'),
);

const DescriptorFixture = Type.Object(
  {
    ref,
    bank: Type.Optional(Type.String({ description: 'The origin bank (default Bawdf, DemoBank)' })),
    params: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'The params of POST /v1/descriptor/payment, over the defaults {"subject": "Fixture <ref>", "amount": 1000, "currency_code": "CLP"}',
      }),
    ),
  },
  strict('An operation descriptor issued (POST /v1/descriptor/payment)'),
);

export const SandboxFixturesSchema = Type.Object(
  {
    payments: list(PaymentFixture, 'Payments in the states asked for'),
    subscriptions: list(SubscriptionFixture, 'Subscriptions with their mandates in the states asked for'),
    charges: list(ChargeFixture, 'Charges on the enabled subscriptions above'),
    descriptors: list(DescriptorFixture, 'Operation descriptors, issued'),
  },
  {
    additionalProperties: false,
    title: 'Sandbox account fixtures',
    description: 'Records a sandbox account starts with, each created through the use cases a merchant, a payer and DemoBank cause, on the account clock',
  },
);

const createdPayment = { ref: Type.String(), payment_id: Type.String(), status: Type.String(), status_detail: Type.String() };

/** What the answer says was made: each fixture's ref and ids, and the state it reached as the public API shows it. */
export const CreatedFixturesSchema = Type.Object({
  payments: Type.Array(Type.Object(createdPayment)),
  subscriptions: Type.Array(
    Type.Object({ ref: Type.String(), subscription_id: Type.String(), status: Type.String({ description: 'DISABLED, SIGNED or ENABLED' }) }),
  ),
  charges: Type.Array(Type.Object({ ...createdPayment, subscription_id: Type.String() })),
  descriptors: Type.Array(Type.Object({ ref: Type.String(), operation_id: Type.String(), description: Type.String() })),
});
