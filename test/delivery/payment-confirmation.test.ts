// A payment paid at DemoBank through the payer pages sends its payer one confirmation, in the
// language of the pages they paid from, with the receipt attached as a PDF; receipt_url serves that
// PDF under the provider's name for its receipts; a payment without a receipt has no PDF.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordCredits } from '../../src/app/record-credits.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { formatInstant } from '../../src/render/format.js';
import { messages } from '../../src/render/words.js';
import { findPayment } from '../../src/store/payments.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually } from '../helpers/notification-receiver.js';
import { assertProviderSchema } from '../helpers/openapi.js';
import { csrfOf, loginToDemoBank, PayerSession, startDemoBankAttempt } from '../helpers/payer-session.js';
import { readPdf } from '../helpers/pdf-text.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let account: TestAccount;
let worker: DeliveryWorker;

beforeAll(async () => {
  server = await startTestServer();
  account = await server.account({ name: 'Tienda Sur' });
  worker = testWorker(server);
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

const api = () => client(server.baseUrl, account.api_key);
/** Intl separates currency codes and times with no-break spaces: compared as plain spaces. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

interface EmailView {
  id: string;
  kind: string;
  status: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content_type: string; content_base64: string }[];
}

async function createPayment(fields: Record<string, unknown> = {}): Promise<string> {
  const created = await api().post('/v3/payments', {
    amount: 12345,
    currency: 'CLP',
    subject: 'Pedido 7',
    transaction_id: 'INV-7',
    payer_name: 'Ana Pérez',
    payer_email: 'ana@example.com',
    ...fields,
  });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

/** The payer's steps at DemoBank, on pages in `lang` when it is chosen; the payment is done once they end. */
async function payAtDemoBank(paymentId: string, lang?: 'en' | 'es'): Promise<Record<string, any>> {
  const session = new PayerSession(server.baseUrl);
  if (lang) await session.get(`/payment/info/${paymentId}?lang=${lang}`);
  const authorize = await loginToDemoBank(session, await startDemoBankAttempt(session, paymentId));
  const done = await session.post(authorize, { _csrf: csrfOf(await session.get(authorize)), c1: '11', c2: '22', c3: '33' });
  expect(done.status).toBe(303);
  const paid = (await api().get(`/v3/payments/${paymentId}`)).body;
  expect(paid.status).toBe('done');
  return paid;
}

/** The payment's emails once every one has been delivered (the local inbox keeps them at once). */
async function deliveredEmails(paymentId: string): Promise<EmailView[]> {
  return eventually(
    async () => (await api().get(`/quipu/v1/emails?payment_id=${paymentId}`)).body.emails as EmailView[],
    (emails) => emails.length > 0 && emails.every((e) => e.status === 'delivered'),
  );
}

async function confirmationOf(paymentId: string): Promise<EmailView> {
  const confirmations = (await deliveredEmails(paymentId)).filter((e) => e.kind === 'payment.email.confirmation');
  expect(confirmations).toHaveLength(1);
  return confirmations[0]!;
}

async function fetchPdf(url: string) {
  const res = await fetch(url);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe('the payer is told the payment went through', () => {
  it('a payment paid at DemoBank sends its payer one confirmation, in Spanish by default, with the receipt PDF attached', async () => {
    const id = await createPayment();
    const paid = await payAtDemoBank(id);
    const fileName = new URL(paid.receipt_url).pathname.split('/').pop()!;
    expect(fileName).toMatch(new RegExp(`^CPKH-\\d{10}-${id}\\.pdf$`));
    assertProviderSchema('payment-get-payment', paid);

    const email = await confirmationOf(id);
    // The address the payer gave on the pages for the receipt (the bank's credit brings it to the payment).
    expect(email.to).toBe(paid.payer_email);
    expect(email.subject).toBe('Comprobante de pago: Pedido 7 · Tienda Sur');
    const text = plain(email.text);
    expect(text).toContain('Tu pago a Tienda Sur fue recibido.');
    expect(text).toContain('Monto: $12.345');
    expect(text).toContain(`Código del pago: ${id}`);
    expect(text).toContain(`${paid.receipt_url}?lang=es`);
    expect(email.html).toContain('<div lang="es">');

    expect(email.attachments).toHaveLength(1);
    const [attachment] = email.attachments;
    expect(attachment).toMatchObject({ filename: fileName, content_type: 'application/pdf' });
    const bytes = Buffer.from(attachment!.content_base64, 'base64');
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const pdf = await readPdf(bytes);
    expect(pdf.pages).toBe(1);
    expect(pdf.title).toBe(`Comprobante de pago ${id}`);
    const lines = pdf.lines.map(plain);
    for (const line of ['Comprobante de pago', 'El pago fue recibido y conciliado.', id, 'Tienda Sur', 'Pedido 7', '$12.345', 'CLP', 'DemoBank', 'INV-7'])
      expect(lines).toContain(line);
    // The instant it was reconciled, on Santiago's clocks as the payer pages write it.
    expect(lines).toContain(plain(formatInstant(new Date(paid.conciliation_date), messages('es'))));
  });

  it('speaks English to a payer who paid from the English pages, in the email and its receipt alike', async () => {
    const id = await createPayment({ amount: 1000, subject: 'Order 8' });
    const paid = await payAtDemoBank(id, 'en');
    const email = await confirmationOf(id);
    expect(email.subject).toBe('Payment receipt: Order 8 · Tienda Sur');
    const text = plain(email.text);
    expect(text).toContain('Your payment to Tienda Sur was received. The receipt is attached as a PDF.');
    expect(text).toContain('Amount: CLP 1,000');
    expect(text).toContain(`${paid.receipt_url}?lang=en`);
    const lines = (await readPdf(Buffer.from(email.attachments[0]!.content_base64, 'base64'))).lines.map(plain);
    for (const line of ['Payment receipt', 'The payment was received and reconciled.', 'CLP 1,000', "Merchant's transaction ID", id])
      expect(lines).toContain(line);
  });

  it('is sent once: a second credit for the paid payment sends nothing more', async () => {
    const id = await createPayment({ amount: 2000 });
    await payAtDemoBank(id);
    await confirmationOf(id);
    const payment = (await findPayment(server.ctx.db, account.receiver_id, id))!;
    const again = {
      bankReference: `again-${id}`,
      account: payment.collectAccountUuid,
      amount: payment.amount,
      currency: payment.currency,
      reference: id,
      creditedAt: new Date(),
      payerBankId: 'Bawdf',
      payerName: null,
      payerEmail: 'ana@example.com',
      payerPersonalIdentifier: null,
      payerAccountNumber: null,
      paymentMethod: null,
      fundsSource: null,
    };
    expect(await recordCredits(server.ctx, [again], 'operator')).toEqual([
      { bankReference: again.bankReference, status: 'unmatched', reason: `payment ${id} is done/normal and cannot be reconciled` },
    ]);
    await confirmationOf(id);
  });
});

describe('receipt_url', () => {
  it("serves the receipt as a PDF under the provider's kind of name, in the page's language", async () => {
    const id = await createPayment({ amount: 4500 });
    const paid = await payAtDemoBank(id);
    const { res, bytes } = await fetchPdf(paid.receipt_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${new URL(paid.receipt_url).pathname.split('/').pop()}"`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const lines = (await readPdf(bytes)).lines.map(plain);
    for (const line of ['Comprobante de pago', '$4.500', id, 'DemoBank', 'INV-7']) expect(lines).toContain(line);
    const english = (await readPdf((await fetchPdf(`${paid.receipt_url}?lang=en`)).bytes)).lines.map(plain);
    expect(english).toContain('Payment receipt');
    expect(english).toContain('CLP 4,500');

    // The receipt page stays beside it, and links to it.
    const page = await fetch(`${server.baseUrl}/payment/receipt/${id}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`href="${new URL(paid.receipt_url).pathname}"`);
  });

  it('has no PDF for a payment without a receipt, nor under another name of a paid one', async () => {
    const unpaid = await createPayment();
    for (const path of [`/payment/receipt/CPKH-0101250000-${unpaid}.pdf`, `/payment/receipt/${unpaid}`]) {
      const res = await fetch(`${server.baseUrl}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('Este cobro no tiene comprobante');
    }
    const paid = await payAtDemoBank(await createPayment({ amount: 3000 }));
    const otherName = paid.receipt_url.replace(/CPKH-\d{10}-/, 'CPKH-0101200000-');
    expect((await fetch(otherName)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/payment/receipt/CPKH-0101250000-nosuchpaymnt.pdf`)).status).toBe(404);
  });
});
