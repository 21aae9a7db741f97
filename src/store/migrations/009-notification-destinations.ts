// Delivery per destination: a worker caps its requests in flight per receiver origin and claims
// past the origins it has no room for, so the origin must be a column the claim can filter on.
// Attempts keep the instant they were due, so an attempt log read after the developer clock jumped
// shows the timetable the attempts followed, not only the moment they were made.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('notifications')
    .addColumn('destination', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // The origin as the WHATWG URL parser gives it (undici pools connections by the same key), and an
  // unparsable URL as its own destination: delivery/destinations.ts, written out here because an
  // applied migration never changes.
  const urls = await db.selectFrom('notifications').select('url').distinct().execute();
  for (const { url } of urls as { url: string }[]) {
    await db
      .updateTable('notifications')
      .set({ destination: URL.canParse(url) ? new URL(url).origin : url })
      .where('url', '=', url)
      .execute();
  }
  await db.schema
    .alterTable('notification_attempts')
    .addColumn('due_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db
    .updateTable('notification_attempts')
    .set({ due_at: sql`started_at` })
    .execute();
}
