// How every list of the CLI prints without --json: a header row naming the columns, then a row an
// item, each column as wide as its widest value (numbers right-aligned), so lists read alike and
// columns line up whatever the values are. `more` is the paging hint printed after a page that has
// a next one.

export interface Column<T> {
  header: string;
  value(row: T): string | number | boolean | null | undefined;
  /** Right-aligned (amounts, counts). */
  right?: boolean;
}

const text = (value: string | number | boolean | null | undefined) => (value === null || value === undefined || value === '' ? '-' : String(value));

export function printTable<T>(columns: readonly Column<T>[], rows: readonly T[], more?: string | null): void {
  const cells = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => text(c.value(row))))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  for (const line of cells) {
    const padded = line.map((cell, i) => (columns[i]!.right ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)));
    console.log(padded.join('  ').trimEnd());
  }
  if (more) console.log(`more: --cursor ${more}`);
}
