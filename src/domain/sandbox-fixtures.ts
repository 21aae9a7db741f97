// Fixtures of a sandbox account (POST /sandbox/accounts, `quipu sandbox create --fixtures`): the
// records a test starts from, each named by the caller (`ref`) and asked for in a state that
// Quipu's own use cases then reach (app/sandbox-fixtures.ts). What each state is, and the checks of
// the request as a whole, made before anything is created. The format is docs/sandbox-fixtures.schema.json.
import type { FieldError } from './errors.js';

export const PAYMENT_FIXTURE_STATES = ['pending', 'verifying', 'done', 'reversed', 'expired'] as const;
export type PaymentFixtureState = (typeof PAYMENT_FIXTURE_STATES)[number];

/** A subscription's mandate: created (not signed), signed (waiting for the bank), enabled, rejected by the bank, revoked by its payer. */
export const SUBSCRIPTION_FIXTURE_STATES = ['created', 'signed', 'enabled', 'rejected', 'revoked'] as const;
export type SubscriptionFixtureState = (typeof SUBSCRIPTION_FIXTURE_STATES)[number];

/** A charge: due (its debit not decided yet), paid (settled by DemoBank), failed (DemoBank failed its debit). */
export const CHARGE_FIXTURE_STATES = ['due', 'paid', 'failed'] as const;
export type ChargeFixtureState = (typeof CHARGE_FIXTURE_STATES)[number];

export const FIXTURE_KINDS = ['payments', 'subscriptions', 'charges', 'descriptors'] as const;
export type FixtureKind = (typeof FIXTURE_KINDS)[number];

/** The most fixtures of one kind a request may ask for: each costs a few transactions. */
export const MAX_FIXTURES_OF_A_KIND = 100;

export interface PaymentFixture {
  ref: string;
  status: PaymentFixtureState;
  amount?: number;
  currency?: string;
  subject?: string;
  transaction_id?: string;
  payer_email?: string;
  notify_url?: string;
}

export interface SubscriptionFixture {
  ref: string;
  status: SubscriptionFixtureState;
  name?: string;
  email?: string;
  max_amount?: number;
  currency?: string;
  notify_url?: string;
}

export interface ChargeFixture {
  ref: string;
  /** The ref of an enabled subscription of the same request. */
  subscription: string;
  status: ChargeFixtureState;
  amount?: number;
  subject?: string;
  transaction_id?: string;
  notify_url?: string;
  error_response_url?: string;
}

export interface DescriptorFixture {
  ref: string;
  bank?: string;
  params?: Record<string, unknown>;
}

export interface SandboxFixtures {
  payments?: PaymentFixture[];
  subscriptions?: SubscriptionFixture[];
  charges?: ChargeFixture[];
  descriptors?: DescriptorFixture[];
}

/** Where a fixture sits in the request body, as a 400 names it: `fixtures.payments.2`. */
export const fixturePath = (kind: FixtureKind, index: number): string => `fixtures.${kind}.${index}`;

type FixtureOf<K extends FixtureKind> = NonNullable<SandboxFixtures[K]>[number];

/**
 * The fixtures of one kind, each with its index. The checks run on a request the schema refused
 * too, so that one 400 names every problem: of such a request, only the entries that are objects,
 * of a list that is one.
 */
export function fixturesOf<K extends FixtureKind>(fixtures: SandboxFixtures, kind: K): [fixture: FixtureOf<K>, index: number][] {
  const list: unknown = fixtures[kind];
  if (!Array.isArray(list)) return [];
  return list.flatMap((fixture: unknown, index) =>
    typeof fixture === 'object' && fixture !== null && !Array.isArray(fixture) ? [[fixture as FixtureOf<K>, index]] : [],
  );
}

/**
 * What is wrong with the fixtures as a whole, every problem named by its path: a ref used twice (refs
 * name fixtures of every kind in the answer), a charge on a subscription the request does not ask
 * for enabled, a reversed payment on an account that may not refund.
 */
export function fixtureProblems(fixtures: SandboxFixtures, account: { refunds: boolean }): FieldError[] {
  const problems: FieldError[] = [];
  const seen = new Map<string, string>();
  for (const kind of FIXTURE_KINDS) {
    for (const [fixture, index] of fixturesOf(fixtures, kind)) {
      const path = fixturePath(kind, index);
      const first = seen.get(fixture.ref);
      if (first !== undefined) problems.push({ field: `${path}.ref`, message: `is already the ref of ${first}` });
      else seen.set(fixture.ref, path);
    }
  }
  const subscriptions = new Map(fixturesOf(fixtures, 'subscriptions').map(([s]) => [s.ref, s.status]));
  for (const [charge, index] of fixturesOf(fixtures, 'charges')) {
    const status = subscriptions.get(charge.subscription);
    if (status === undefined)
      problems.push({ field: `${fixturePath('charges', index)}.subscription`, message: 'must be the ref of a subscription of fixtures.subscriptions' });
    else if (status !== 'enabled')
      problems.push({
        field: `${fixturePath('charges', index)}.subscription`,
        message: `must be an enabled subscription (${charge.subscription} is ${status})`,
      });
  }
  if (!account.refunds)
    for (const [payment, index] of fixturesOf(fixtures, 'payments'))
      if (payment.status === 'reversed')
        problems.push({ field: `${fixturePath('payments', index)}.status`, message: 'reversed needs an account that refunds: send "refunds": true' });
  return problems;
}
