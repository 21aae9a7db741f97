// A paid payment's receipt as the payer reads it: its facts, which the receipt page lists and its
// PDF prints (receipt_url, and the attachment of the payer's confirmation email). The PDF is drawn
// with pdf-lib in Helvetica, one of the fonts every PDF reader has, so no font is embedded or read
// from disk: its WinAnsi encoding has every letter of Spanish and English, and a character it
// lacks (an emoji in a subject) is printed as `?` rather than failing the receipt. pdf-lib is
// loaded with the first receipt drawn, not with every process that might draw one.
import type { PDFFont } from 'pdf-lib';
import type { Merchant } from '../domain/merchant.js';
import type { ReceiptPayment } from '../domain/receipt.js';
import { formatInstant, formatMoney } from './format.js';
import type { Messages } from './words.js';

/** One thing the receipt attests: `name` is the same in every language (the page's class for it). */
export interface ReceiptFact {
  name: string;
  label: string;
  value: string;
}

/** What the receipt attests, in the order it says it. */
export function receiptFacts(m: Messages, payment: ReceiptPayment, merchant: Pick<Merchant, 'name'>): ReceiptFact[] {
  const fact = (name: string, label: string, value: string | null) => ({ name, label, value: value ?? '' });
  return [
    fact('payment-id', m.paymentCode, payment.paymentId),
    fact('merchant', m.merchant, merchant.name),
    fact('subject', m.subject, payment.subject),
    fact('amount', m.amount, formatMoney(payment.amount, payment.currency, m)),
    fact('currency', m.currency, payment.currency),
    fact('conciliation-date', m.conciliationDate, formatInstant(payment.conciliationAt, m)),
    fact('payer', m.payer, payment.payerName),
    fact('personal-identifier', m.personalIdentifier, payment.personalIdentifier),
    fact('bank', m.bank, payment.bankName),
    fact('method', m.method, payment.paymentMethod === 'simplified_transfer' ? m.simplified : m.manual),
    ...(payment.transactionId ? [fact('transaction-id', m.transactionId, payment.transactionId)] : []),
  ];
}

/** The lines of the receipt other than its facts: what became of the payment, and a late credit. */
function receiptNotes(m: Messages, payment: ReceiptPayment): string[] {
  return [payment.statusDetail === 'reversed' ? m.reversed : m.paid, ...(payment.outOfDateConciliation ? [m.lateConciliation] : [])];
}

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 56;
/** Where the facts' values start; their labels fit before it. */
const VALUE_X = 210;
const GAP = 12;

/** `text` as the font can print it: spaces for control characters and spaces it lacks, `?` for any other character it lacks. */
function printable(text: string, characters: ReadonlySet<number>): string {
  let out = '';
  for (const c of text) out += characters.has(c.codePointAt(0)!) ? c : /[\p{Cc}\p{Z}]/u.test(c) ? ' ' : '?';
  return out;
}

export async function receiptPdf(m: Messages, payment: ReceiptPayment, merchant: Pick<Merchant, 'name'>): Promise<Uint8Array> {
  // Bundled into dist/, a CommonJS package imported this way has only its default export; run by
  // tsx (the benchmarks), pdf-lib, which marks itself an ES module, has only its named ones.
  const loaded = await import('pdf-lib');
  const pdf = loaded.default ?? loaded;
  const doc = await pdf.PDFDocument.create({ updateMetadata: false });
  doc.setTitle(`${m.receiptTitle} ${payment.paymentId}`);
  doc.setLanguage(m.locale);
  const regular = await doc.embedFont(pdf.StandardFonts.Helvetica);
  const bold = await doc.embedFont(pdf.StandardFonts.HelveticaBold);
  const characters = new Set(regular.getCharacterSet());
  const page = doc.addPage([A4.width, A4.height]);
  let y = A4.height - MARGIN;

  /** Writes `text` at `x` (the top of its first line at `y`), wrapped at spaces, and inside a word too long for a line; answers the height it took. */
  const write = (text: string, x: number, width: number, font: PDFFont, size: number, grey = 0) => {
    const measure = (t: string) => font.widthOfTextAtSize(t, size);
    const lines = pdf
      .breakTextIntoLines(printable(text, characters), [' '], width, measure)
      .flatMap((line) => (measure(line) > width ? pdf.breakTextIntoLines(line, [''], width, measure) : [line]));
    const leading = size * 1.4;
    lines.forEach((line, i) => page.drawText(line, { x, y: y - size - i * leading, size, font, color: pdf.grayscale(grey) }));
    return Math.max(lines.length, 1) * leading;
  };

  const full = A4.width - 2 * MARGIN;
  y -= write(m.receiptTitle, MARGIN, full, bold, 18) + GAP;
  for (const note of receiptNotes(m, payment)) y -= write(note, MARGIN, full, regular, 11);
  y -= GAP;
  for (const { name, label, value } of receiptFacts(m, payment, merchant)) {
    const labelHeight = write(label, MARGIN, VALUE_X - MARGIN - GAP, bold, 10, 0.35);
    const valueHeight = write(value, VALUE_X, A4.width - MARGIN - VALUE_X, name === 'amount' ? bold : regular, 10);
    y -= Math.max(labelHeight, valueHeight) + 4;
  }
  return doc.save({ useObjectStreams: false, objectsPerTick: Infinity });
}
