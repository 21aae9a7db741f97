// A domain record's fields as a table's columns, as both databases store them (schema.ts): names in
// snake_case, instants as epoch milliseconds, flags as 0/1, and a closed set of words as text. A
// table that holds one record is typed from it, and its rows read back with `recordOf`.
type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}` ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}` : S;

type Column<V> = V extends Date ? number : V extends boolean ? number : V extends string ? string : V;

export type ColumnsOf<T> = { [K in keyof T & string as SnakeCase<K>]: Column<T[K]> };

/** Every field of `T` a column does not hold as it is: its instants and its flags, each named. */
type Decoding<T> = { [K in keyof T as NonNullable<T[K]> extends Date | boolean ? K : never]-?: NonNullable<T[K]> extends Date ? 'instant' : 'flag' };

const fieldNames = new Map<string, string>();
const fieldOf = (column: string) => {
  let field = fieldNames.get(column);
  if (field === undefined) fieldNames.set(column, (field = column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())));
  return field;
};

/** The record a row holds; the type of `T`'s fields is trusted as the row's columns are (a state is one of its words). */
export function recordOf<T>(row: ColumnsOf<T>, decoding: Decoding<T>): T {
  const kinds: Record<string, 'instant' | 'flag' | undefined> = decoding;
  const record: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    const field = fieldOf(column);
    const kind = kinds[field];
    record[field] = value === null || kind === undefined ? value : kind === 'instant' ? new Date(Number(value)) : value === 1;
  }
  return record as T;
}
