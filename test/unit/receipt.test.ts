// A paid payment's receipt: its file name is the provider's, CPKH-<day month year hour minute in
// Santiago>-<payment_id>.pdf, and its PDF prints whatever a merchant wrote, on one page.
import { describe, expect, it } from 'vitest';
import { hasReceipt, type ReceiptPayment, receiptFileName } from '../../src/domain/receipt.js';
import { receiptPdf } from '../../src/render/receipt.js';
import { messages } from '../../src/render/words.js';
import { FIXTURE_INSTANT, paymentFixture } from '../helpers/payment-fixture.js';
import { readPdf } from '../helpers/pdf-text.js';

const paid = (overrides: Parameters<typeof paymentFixture>[0] = {}) =>
  paymentFixture({
    status: 'done',
    statusDetail: 'normal',
    conciliationAt: FIXTURE_INSTANT,
    receiptUrl: 'http://localhost/payment/receipt/CPKH-1804240956-abc123def456.pdf',
    payerName: 'Ana Pérez',
    bankName: 'DemoBank',
    paymentMethod: 'simplified_transfer',
    ...overrides,
  }) as ReceiptPayment;

describe('receiptFileName', () => {
  it("names the provider's example receipt as the provider does (provider-facts §2)", () => {
    expect(receiptFileName('zfxnocsow6mz', new Date('2024-04-18T13:56:54.859Z'))).toBe('CPKH-1804240956-zfxnocsow6mz.pdf');
  });

  it("reads the instant on Santiago's clocks, summer time and the day's turn included", () => {
    // January: Chile's summer time, UTC-3; 02:30 UTC is still the evening before there.
    expect(receiptFileName('abcdefghijkl', new Date('2025-01-01T02:30:00Z'))).toBe('CPKH-3112242330-abcdefghijkl.pdf');
    expect(receiptFileName('abcdefghijkl', new Date('2025-07-01T04:05:00Z'))).toBe('CPKH-0107250005-abcdefghijkl.pdf');
  });
});

describe('hasReceipt', () => {
  it('only for a payment reconciled from a credit', () => {
    expect(hasReceipt(paid())).toBe(true);
    expect(hasReceipt(paid({ statusDetail: 'reversed' }))).toBe(true);
    expect(hasReceipt(paymentFixture())).toBe(false);
    expect(hasReceipt(paid({ statusDetail: 'marked-paid-by-receiver', receiptUrl: null, conciliationAt: null }))).toBe(false);
  });
});

describe('receiptPdf', () => {
  it('prints what Helvetica lacks as ?, a line break as a space, and wraps a word too long for its column', async () => {
    const long = 'X'.repeat(200);
    const pdf = await readPdf(await receiptPdf(messages('es'), paid({ subject: 'Regalo 🎁\nfin', transactionId: long }), { name: 'Café Ñandú' }));
    expect(pdf.pages).toBe(1);
    expect(pdf.lines).toContain('Regalo ? fin');
    expect(pdf.lines).toContain('Café Ñandú');
    const pieces = pdf.lines.filter((line) => /^X+$/.test(line));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(long);
  });

  it('says a refunded payment was refunded, and a late credit was late', async () => {
    const pdf = await readPdf(await receiptPdf(messages('en'), paid({ statusDetail: 'reversed', outOfDateConciliation: true }), { name: 'Shop' }));
    expect(pdf.lines.slice(0, 3)).toEqual(['Payment receipt', 'This payment was refunded.', 'The credit arrived after the charge expired.']);
  });
});
