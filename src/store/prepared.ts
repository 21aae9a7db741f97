// Hot queries compiled once per dialect and run again with new values. Kysely builds and compiles
// a query on every call, which costs more than a primary-key lookup; the SQL of these queries
// never changes, only their values do.
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { type Dialect, dialectOf } from './database.js';
import { nameStatement } from './statement-names.js';
import type { DB } from './schema.js';

export interface Prepared<A extends unknown[], R> {
  run(db: Kysely<DB>, ...args: A): Promise<QueryResult<R>>;
}

/**
 * `build` makes the query from sample arguments; `values` lists the values in the order the
 * compiled query binds them. The first compilation checks that they agree, so a query whose
 * values move is caught at once rather than answering with another row.
 */
export function prepare<A extends unknown[], R>(
  build: (db: Kysely<DB>, ...args: A) => { compile(): CompiledQuery<R> },
  values: (...args: A) => unknown[],
): Prepared<A, R> {
  const compiled = new Map<Dialect, CompiledQuery<R>>();
  return {
    run(db, ...args) {
      const dialect = dialectOf(db);
      let query = compiled.get(dialect);
      const parameters = values(...args);
      if (!query) {
        query = build(db, ...args).compile();
        if (JSON.stringify(query.parameters) !== JSON.stringify(parameters))
          throw new Error(`prepared query binds ${JSON.stringify(query.parameters)}, not ${JSON.stringify(parameters)}`);
        if (dialect === 'postgres') nameStatement(query.sql);
        compiled.set(dialect, query);
      }
      return db.executeQuery<R>({ ...query, parameters });
    },
  };
}

/**
 * The insert of a whole row into `table`, its values bound in the fixed order of `columns` (every
 * column of the table), whatever the order of the row's keys.
 */
export function preparedInsert<R extends object>(table: keyof DB & string, columns: readonly (keyof R & string)[]): Prepared<[R], unknown> {
  return prepare(
    (db, row: R) => db.insertInto(table).values(Object.fromEntries(columns.map((c) => [c, row[c]])) as never),
    (row) => columns.map((c) => row[c]),
  );
}
