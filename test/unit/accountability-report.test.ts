// Which payments a funds delivery includes, what each brings, and the report's exact bytes.
import { describe, expect, it } from 'vitest';
import { accountabilityReport, accountabilityReportMessage } from '../../src/domain/accountability-report.js';
import { fundDeliveries, netAmount } from '../../src/domain/fund-delivery.js';
import type { Payment } from '../../src/domain/payment.js';
import { FIXTURE_INSTANT, paymentFixture } from '../helpers/payment-fixture.js';

const SETTLEMENT = new Date('2024-04-19T14:00:00.000Z');
const LATER = new Date('2024-04-22T14:00:00.000Z');
const NOW = new Date('2024-04-22T15:00:00.000Z');

function paid(paymentId: string, overrides: Partial<Payment> = {}): Payment {
  return paymentFixture({
    paymentId,
    status: 'done',
    statusDetail: 'normal',
    version: 3,
    subject: `Order ${paymentId}`,
    bankId: 'Bawdf',
    bankName: 'DemoBank',
    paymentMethod: 'simplified_transfer',
    fundsSource: '',
    conciliationAt: FIXTURE_INSTANT,
    fundsDeliveryAt: SETTLEMENT,
    ...overrides,
  });
}

describe('funds deliveries', () => {
  it('pays out what was paid less what was refunded', () => {
    expect(netAmount({ amount: 10_000_000, refunded: 3_000_000 })).toBe(7_000_000);
    expect(netAmount({ amount: 12_345_678, refunded: 0 })).toBe(12_345_678);
  });

  it("groups an account's payments by the instant their funds were due and their currency, earliest first", () => {
    const deliveries = fundDeliveries(
      [
        paid('late', { fundsDeliveryAt: LATER }),
        paid('second', { conciliationAt: new Date('2024-04-18T15:00:00.000Z'), refunded: 2_500_000 }),
        paid('first'),
        paid('uf', { currency: 'CLF', amount: 12_345 }),
      ],
      NOW,
    );
    expect(deliveries.map((d) => [d.deliveredAt.toISOString(), d.currency, d.payments.map((p) => p.paymentId), d.total])).toEqual([
      [SETTLEMENT.toISOString(), 'CLF', ['uf'], 12_345],
      [SETTLEMENT.toISOString(), 'CLP', ['first', 'second'], 17_500_000],
      [LATER.toISOString(), 'CLP', ['late'], 10_000_000],
    ]);
  });

  it('leaves out funds not due yet, reversed payments and payments marked paid by the receiver', () => {
    const deliveries = fundDeliveries(
      [
        paid('due'),
        paid('future', { fundsDeliveryAt: new Date(NOW.getTime() + 1) }),
        paid('unconfirmed', { fundsDeliveryAt: null }),
        paid('reversed', { statusDetail: 'reversed', refunded: 10_000_000 }),
        paid('marked', { statusDetail: 'marked-paid-by-receiver', fundsDeliveryAt: null }),
      ],
      NOW,
    );
    expect(deliveries.map((d) => d.payments.map((p) => p.paymentId))).toEqual([['due']]);
    expect(fundDeliveries([paid('reversed', { statusDetail: 'reversed', refunded: 10_000_000 })], NOW)).toEqual([]);
  });
});

describe('the accountability report', () => {
  const [delivery] = fundDeliveries(
    [
      paid('zfxnocsow6mz', { transactionId: 'T-1/2', refunded: 3_000_000 }),
      paid('abcdefghijkl', { amount: 25_005_000, conciliationAt: new Date('2024-04-18T16:00:00.000Z') }),
    ],
    NOW,
  );
  const recorded = { ...delivery!, deliveryId: '6f1c2a9e-1111-4222-8333-444455556666', receiverId: 990939 };

  it('is written as the provider writes JSON, amounts as four-decimal text', () => {
    expect(accountabilityReport(recorded)).toBe(
      '{"receiver_id":990939,"delivery_id":"6f1c2a9e-1111-4222-8333-444455556666","delivery_date":"2024-04-19T14:00:00.000Z","currency":"CLP","payments":[' +
        '{"payment_id":"zfxnocsow6mz","transaction_id":"T-1\\/2","subject":"Order zfxnocsow6mz","conciliation_date":"2024-04-18T13:56:54.859Z","amount":"1000.0000","refunded":"300.0000","net":"700.0000"},' +
        '{"payment_id":"abcdefghijkl","transaction_id":"","subject":"Order abcdefghijkl","conciliation_date":"2024-04-18T16:00:00.000Z","amount":"2500.5000","refunded":"0.0000","net":"2500.5000"}' +
        '],"total":"3200.5000"}',
    );
  });

  it('is a signed message about the receiver, to its rendition_url', () => {
    expect(accountabilityReportMessage(recorded, 'https://shop.example/rendition')).toEqual({
      kind: 'receiver.accountability',
      receiverId: 990939,
      subjectId: '990939',
      url: 'https://shop.example/rendition',
      contentType: 'application/json',
      body: accountabilityReport(recorded),
    });
  });
});
