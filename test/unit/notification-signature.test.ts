import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { notificationBody, paymentNotification } from '../../src/domain/notification-body.js';
import { notificationSignature } from '../../src/domain/notification-signature.js';
import type { Payment } from '../../src/domain/payment.js';
import { FIXTURE_INSTANT, paymentFixture } from '../helpers/payment-fixture.js';

// provider-facts.md section 2: the provider's own 3.0 notification and its signature.
const SECRET = '1a4cbbbeb8bdb7e1d73572b9cc43ce4ce18f79d9';
const T = 1711965600393;
const BODY =
  '{"payment_id":"zfxnocsow6mz","receiver_id":990939,"subject":"TEST_COBRO","amount":"1000.0000","discount":"0.0000","currency":"CLP","receipt_url":"https:\\/\\/s3.amazonaws.com\\/staging.notifications.khipu.com\\/CPKH-1804240956-zfxnocsow6mz.pdf","bank":"DemoBank","bank_id":"Bawdf","payer_name":"Cobrador de desarrollo #990.939","payer_email":"test@khipu.com","personal_identifier":"44.444.444-4","bank_account_number":"000000000000444444444","out_of_date_conciliation":false,"transaction_id":"15f836bd-e8a7-4d12-b2f1-56403012b555","responsible_user_email":"test@khipu.com","payment_method":"simplified_transfer","conciliation_date":"2024-04-18T13:56:54.859Z"}';

function vectorPayment(overrides: Partial<Payment> = {}): Payment {
  return paymentFixture({
    paymentId: 'zfxnocsow6mz',
    status: 'done',
    statusDetail: 'normal',
    version: 2,
    subject: 'TEST_COBRO',
    transactionId: '15f836bd-e8a7-4d12-b2f1-56403012b555',
    bankId: 'Bawdf',
    bankName: 'DemoBank',
    notifyUrl: 'https://merchant.example/notify',
    notifyApiVersion: '3.0',
    payerName: 'Cobrador de desarrollo #990.939',
    payerEmail: 'test@khipu.com',
    responsibleUserEmail: 'test@khipu.com',
    personalIdentifier: '44.444.444-4',
    bankAccountNumber: '000000000000444444444',
    paymentMethod: 'simplified_transfer',
    fundsSource: '',
    receiptUrl: 'https://s3.amazonaws.com/staging.notifications.khipu.com/CPKH-1804240956-zfxnocsow6mz.pdf',
    conciliationAt: FIXTURE_INSTANT,
    ...overrides,
  });
}

describe('3.0 notification signature', () => {
  it('reproduces the provider test vector', () => {
    expect(notificationSignature(SECRET, T, BODY)).toBe('t=1711965600393,s=GYzpjnXlTKQ+BJY7pZJmrM6DZgWMSJdtOr/dleBKTdg=');
  });

  it('changes with the secret, the timestamp and any byte of the body', () => {
    const good = notificationSignature(SECRET, T, BODY);
    expect(notificationSignature(SECRET.replace('1', '2'), T, BODY)).not.toBe(good);
    expect(notificationSignature(SECRET, T + 1, BODY).split(',s=')[1]).not.toBe(good.split(',s=')[1]);
    expect(notificationSignature(SECRET, T, BODY.replace('1000.0000', '1000.0001'))).not.toBe(good);
  });

  it('verifies the way merchant plugins verify it', () => {
    const header = notificationSignature(SECRET, T, BODY);
    const [, t, s] = /^t=(\d+),s=(.+)$/.exec(header)!;
    expect(createHmac('sha256', SECRET).update(`${t}.${BODY}`).digest('base64')).toBe(s);
  });
});

describe('notification bodies', () => {
  it('writes a payment as the provider does, byte for byte', () => {
    const { contentType, body } = notificationBody('3.0', vectorPayment());
    expect(contentType).toBe('application/json');
    expect(body).toBe(BODY);
  });

  it('keeps amounts as four-decimal text and the receiver id as an integer', () => {
    const json = JSON.parse(notificationBody('3.0', vectorPayment({ amount: 12_345_678, discount: 5 })).body);
    expect(json.amount).toBe('1234.5678');
    expect(json.discount).toBe('0.0005');
    expect(json.receiver_id).toBe(990939);
  });

  it('adds custom and body only when the payment has them', () => {
    expect(paymentNotification(vectorPayment())).not.toHaveProperty('custom');
    const withThem = paymentNotification(vectorPayment({ custom: '{"order":"a/1"}', body: 'Detalle' }));
    expect(withThem.custom).toBe('{"order":"a/1"}');
    expect(withThem.body).toBe('Detalle');
    // Escaped slashes are only an encoding: the values read back unchanged.
    expect(JSON.parse(notificationBody('3.0', vectorPayment({ custom: 'a\\/b/c' })).body).custom).toBe('a\\/b/c');
  });

  it('sends version 1.3 as a form with the notification token', () => {
    const { contentType, body } = notificationBody('1.3', vectorPayment({ notificationToken: 'f'.repeat(64) }));
    expect(contentType).toBe('application/x-www-form-urlencoded');
    expect(body).toBe(`api_version=1.3&notification_token=${'f'.repeat(64)}`);
  });
});
