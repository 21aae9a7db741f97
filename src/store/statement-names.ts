// PostgreSQL: a statement whose SQL never changes (prepared.ts) is sent by name, so the server
// parses and plans it once per connection instead of on every query (postgres-pool.ts sends it).
const statementNames = new Map<string, string>();

export function nameStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `quipu_${statementNames.size}`);
}

/** The name a statement is sent by, if it has one. */
export const statementName = (sql: string): string | undefined => statementNames.get(sql);
