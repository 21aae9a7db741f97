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
 * The insert of a whole row into `table`, compiled once per list of columns: the row's keys, in
 * their order. Rows of one table are built alike, so that is once per table.
 */
export function preparedInsert<R extends object>(table: keyof DB & string): Prepared<[R], unknown> {
  const byColumns = new Map<string, Prepared<[R], unknown>>();
  return {
    run(db, row) {
      const columns = Object.keys(row) as (keyof R & string)[];
      const key = columns.join();
      let insert = byColumns.get(key);
      if (!insert) {
        insert = prepare(
          (db, sample: R) => db.insertInto(table).values(sample as never),
          (values) => columns.map((c) => values[c]),
        );
        byColumns.set(key, insert);
      }
      return insert.run(db, row);
    },
  };
}
