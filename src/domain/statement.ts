// Bank statement files an operator feeds to `quipu reconcile`: CSV with a header row naming the
// credit fields, or JSON lines (one credit object per line). Both decode through the credit field
// table; a statement with any bad line is refused whole, naming the line and the field.
import { CsvError, parse } from 'csv-parse/sync';
import { type BankCredit, parseCredits } from './bank-credit.js';
import { fieldError, validationError } from './errors.js';
import type { RawValue } from './field-rules.js';

export type StatementFormat = 'csv' | 'jsonl';

/** By the file's extension; otherwise a file whose first character opens a JSON object is JSON lines. */
export function statementFormat(fileName: string, content: string): StatementFormat {
  if (/\.csv$/i.test(fileName)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(fileName)) return 'jsonl';
  return content.trimStart().startsWith('{') ? 'jsonl' : 'csv';
}

interface Row {
  line: number;
  values: Record<string, RawValue>;
}

function csvRows(content: string): Row[] {
  try {
    const records = parse(content, { columns: true, bom: true, trim: true, skip_empty_lines: true, info: true }) as {
      record: Record<string, string>;
      info: { lines: number };
    }[];
    return records.map(({ record, info }) => ({ line: info.lines, values: record }));
  } catch (error) {
    if (error instanceof CsvError) throw fieldError(`line ${(error as CsvError & { lines?: number }).lines ?? '?'}`, error.message);
    throw error;
  }
}

function jsonRows(content: string): Row[] {
  const rows: Row[] = [];
  const errors: { field: string; message: string }[] = [];
  content.split(/\r?\n/).forEach((text, index) => {
    if (text.trim() === '') return;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      errors.push({ field: `line ${line}`, message: 'is not valid JSON' });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) errors.push({ field: `line ${line}`, message: 'must be a JSON object' });
    else rows.push({ line, values: value as Record<string, RawValue> });
  });
  if (errors.length > 0) throw validationError(errors, 'Invalid statement');
  return rows;
}

export function parseStatement(content: string, format: StatementFormat): BankCredit[] {
  const rows = format === 'csv' ? csvRows(content) : jsonRows(content);
  return parseCredits(
    rows.map((r) => r.values),
    (index) => `line ${rows[index]!.line}`,
  );
}
