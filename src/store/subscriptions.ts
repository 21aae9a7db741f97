// Subscription rows, their mapping to the domain's Subscription, and the history of their mandates.
import type { Kysely } from 'kysely';
import { inChainOrder, type MandateEvent, type MandateOrigin, type MandateState } from '../domain/mandate-status.js';
import type { Subscription } from '../domain/subscription.js';
import { dialectOf } from './database.js';
import { inChunks } from './group-commit.js';
import { GroupRead } from './group-read.js';
import { perDatabase } from './per-database.js';
import type { DB, SubscriptionRow, SubscriptionsTable, SubscriptionUpdate } from './schema.js';

export function toSubscription(row: SubscriptionRow): Subscription {
  return {
    subscriptionId: row.subscription_id,
    receiverId: Number(row.receiver_id),
    name: row.name,
    email: row.email,
    maxAmount: Number(row.max_amount),
    currency: row.currency,
    notifyUrl: row.notify_url,
    returnUrl: row.return_url,
    cancelUrl: row.cancel_url,
    serviceReference: row.service_reference,
    imageUrl: row.image_url,
    description: row.description,
    developer: row.developer === 1,
    state: row.state as MandateState,
    bankId: row.bank_id,
    payerIdentifier: row.payer_identifier,
    payerAccount: row.payer_account,
    payerName: row.payer_name,
    version: row.version,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}

export async function insertSubscription(db: Kysely<DB>, row: SubscriptionsTable): Promise<void> {
  await db.insertInto('subscriptions').values(row).execute();
}

const lookups = perDatabase(
  (db: Kysely<DB>) =>
    new GroupRead(async (ids: string[]) => {
      const chunks = await Promise.all(
        inChunks(ids).map((chunk) => db.selectFrom('subscriptions').selectAll().where('subscription_id', 'in', chunk).execute()),
      );
      return new Map(chunks.flat().map((row) => [row.subscription_id, toSubscription(row)]));
    }),
);

/** A subscription by id alone (the payer's pages know the id, not the account); locked until the transaction ends if asked. */
export async function findSubscriptionById(db: Kysely<DB>, subscriptionId: string, options: { lock?: boolean } = {}): Promise<Subscription | undefined> {
  // Outside a transaction, with the lookups that arrive with it (group-read.ts).
  if (!db.isTransaction) return lookups(db).get(subscriptionId);
  const row = await db
    .selectFrom('subscriptions')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    // SQLite transactions already hold the database's write lock (BEGIN IMMEDIATE).
    .$if(options.lock === true && dialectOf(db) === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  return row && toSubscription(row);
}

/** A subscription of one account: another account's is not found. */
export async function findSubscription(
  db: Kysely<DB>,
  receiverId: number,
  subscriptionId: string,
  options: { lock?: boolean } = {},
): Promise<Subscription | undefined> {
  const subscription = await findSubscriptionById(db, subscriptionId, options);
  return subscription?.receiverId === receiverId ? subscription : undefined;
}

/** Compare-and-set on the version; false when another change came first. */
export async function updateSubscription(db: Kysely<DB>, subscriptionId: string, version: number, update: SubscriptionUpdate): Promise<boolean> {
  const result = await db
    .updateTable('subscriptions')
    .set({ ...update, version: version + 1 })
    .where('subscription_id', '=', subscriptionId)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface MandateChange {
  changeId: string;
  subscriptionId: string;
  event: MandateEvent;
  from: MandateState;
  to: MandateState;
  origin: MandateOrigin;
  reason: string;
  changedAt: Date;
}

export async function insertMandateChange(db: Kysely<DB>, change: MandateChange): Promise<void> {
  await db
    .insertInto('subscription_changes')
    .values({
      change_id: change.changeId,
      subscription_id: change.subscriptionId,
      event: change.event,
      from_state: change.from,
      to_state: change.to,
      origin: change.origin,
      reason: change.reason,
      changed_at: change.changedAt.getTime(),
    })
    .execute();
}

/** A subscription's history, oldest first. */
export async function mandateChanges(db: Kysely<DB>, subscriptionId: string): Promise<MandateChange[]> {
  const rows = await db
    .selectFrom('subscription_changes')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('changed_at')
    .orderBy('change_id')
    .execute();
  return inChainOrder(
    rows.map((row) => ({
      changeId: row.change_id,
      subscriptionId: row.subscription_id,
      event: row.event as MandateEvent,
      from: row.from_state as MandateState,
      to: row.to_state as MandateState,
      origin: row.origin as MandateOrigin,
      reason: row.reason,
      changedAt: new Date(Number(row.changed_at)),
    })),
  );
}

/** The installation's subscriptions, or one account's, newest first. */
export async function listSubscriptions(db: Kysely<DB>, filter: { receiverId?: number; limit: number }): Promise<Subscription[]> {
  const rows = await db
    .selectFrom('subscriptions')
    .selectAll()
    .$if(filter.receiverId !== undefined, (q) => q.where('receiver_id', '=', filter.receiverId!))
    .orderBy('created_at', 'desc')
    .orderBy('subscription_id')
    .limit(filter.limit)
    .execute();
  return rows.map(toSubscription);
}
