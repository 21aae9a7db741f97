// What a PDF of Quipu's says, read back with pdf-lib: each content stream decoded and the strings
// it shows, in the order drawn. pdf-lib writes text as hex strings (`<48656C6C6F> Tj`) in WinAnsi,
// which Latin-1 reads alike for every letter Quipu prints.
import { decodePDFRawStream, PDFDocument, PDFRawStream } from 'pdf-lib';

export interface PdfRead {
  pages: number;
  title: string | undefined;
  /** Each string shown, in the order drawn. */
  lines: string[];
}

export async function readPdf(bytes: Uint8Array): Promise<PdfRead> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const lines: string[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    const content = Buffer.from(decodePDFRawStream(object).decode()).toString('latin1');
    for (const [, hex] of content.matchAll(/<([0-9A-Fa-f]*)> Tj/g)) lines.push(Buffer.from(hex!, 'hex').toString('latin1'));
  }
  return { pages: doc.getPageCount(), title: doc.getTitle(), lines };
}
