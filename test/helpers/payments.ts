// Test shortcuts that go through the service's own use cases.
import type { Kysely } from 'kysely';
import type { AppContext } from '../../src/app/context.js';
import { type MatchedCredit, reconcilePayment } from '../../src/app/reconcile-payment.js';
import type { Merchant } from '../../src/domain/merchant.js';
import type { Payment } from '../../src/domain/payment.js';
import type { DB } from '../../src/store/schema.js';

/**
 * A credit that names no payer email, as a bank's may not: its payment's payer is sent no
 * confirmation (docs/emails.md), so the tests of notifications see only their own messages.
 */
export const DEMO_CREDIT: Omit<MatchedCredit, 'creditedAt'> = {
  bankId: 'Bawdf',
  payerName: 'Cobrador de desarrollo',
  payerEmail: '',
  personalIdentifier: '11.111.111-1',
  bankAccountNumber: '000000000000111111111',
  paymentMethod: 'simplified_transfer',
  fundsSource: '',
};

/** Reconciles a payment as a matched bank credit would. */
export async function payByTransfer(ctx: AppContext, merchant: Merchant, paymentId: string, credit: Partial<MatchedCredit> = {}): Promise<Payment> {
  return reconcilePayment(ctx, merchant, paymentId, { ...DEMO_CREDIT, creditedAt: ctx.clock.now(), ...credit });
}

export async function countRows(db: Kysely<DB>, table: keyof DB): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Every table's row count: what "nothing written" is checked against. The audit log is left out: it
 * records the refusal itself, once the answer has gone (test/http/audit-log.test.ts).
 */
const RECORDS_OF_ANSWERS = new Set(['audit_log']);

export async function everyTableCount(db: Kysely<DB>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await db.introspection.getTables()) {
    if (!RECORDS_OF_ANSWERS.has(table.name)) counts[table.name] = await countRows(db, table.name as keyof DB);
  }
  return counts;
}
