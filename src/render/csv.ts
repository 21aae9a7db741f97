// CSV as spreadsheets and csv parsers read it (RFC 4180): fields separated by commas, lines ended
// by CRLF, a field with a comma, quote or line break quoted and its quotes doubled. Text a person
// wrote (a subject, an email) that a spreadsheet would run as a formula (=, +, -, @, tab, CR first)
// is prefixed with an apostrophe, as OWASP advises for CSV files opened in spreadsheets.

const FORMULA_START = /^[=+\-@\t\r]/;

export type CsvField = string | number | null;

function field(value: CsvField): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Text written by a merchant or payer, made safe to open in a spreadsheet. */
export const csvText = (text: string | null): string | null => (text !== null && FORMULA_START.test(text) ? `'${text}` : text);

export const csvLine = (values: readonly CsvField[]): string => `${values.map(field).join(',')}\r\n`;
