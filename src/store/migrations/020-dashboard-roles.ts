// Roles of dashboard users (domain/dashboard-roles.ts). Every user before roles could do everything
// the dashboard offers: they stay owners.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('dashboard_users')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('owner'))
    .execute();
}
