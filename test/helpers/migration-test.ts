// What a test file of one migration needs around its tests (vitest's hooks, kept out of
// database.ts, which the benches import too).
import type { Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { databaseBefore, type EarlierDatabase, type TestDatabase } from './database.js';

/**
 * For a test file of one migration: databaseBefore(`migration`), made before its tests and dropped
 * after them. Its properties are set in the beforeAll hook it registers.
 */
export function useDatabaseBefore(migration: string): { readonly db: Kysely<any>; readonly database: TestDatabase } {
  let earlier: EarlierDatabase | undefined;
  beforeAll(async () => {
    earlier = await databaseBefore(migration);
  });
  afterAll(async () => earlier?.close());
  return {
    get db() {
      return earlier!.db;
    },
    get database() {
      return earlier!.database;
    },
  };
}
