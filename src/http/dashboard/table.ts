// The dashboard's tables: every cell carries its column's name (data-label), so under 600 px the
// stylesheet lays each row out as a stacked card of "name: value" lines instead of columns too
// narrow to read.
import { type Html, html, type HtmlValue } from '../../render/html.js';

export interface Column {
  label: string;
  /** A class for the column's header and cells (number: right-aligned). */
  className?: string;
}

export interface Row {
  cells: readonly HtmlValue[];
  /** Attributes of the row, already markup (data-payment-id="…"). */
  attributes?: Html;
}

export function dataTable(className: string, columns: readonly Column[], rows: readonly Row[]): Html {
  const cls = (column: Column | undefined) => (column?.className ? html` class="${column.className}"` : '');
  return html`<table class="${className} stacking"><thead><tr>${columns.map((c) => html`<th scope="col"${cls(c)}>${c.label}</th>`)}</tr></thead><tbody>
${rows.map(
  (row) =>
    html`<tr${row.attributes ? html` ${row.attributes}` : ''}>${row.cells.map((cell, i) => html`<td data-label="${columns[i]?.label ?? ''}"${cls(columns[i])}>${cell}</td>`)}</tr>`,
)}
</tbody></table>`;
}
