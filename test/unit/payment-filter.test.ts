// Reading a payments listing's parameters: defaults, what each accepts, dates as days in Chile, and
// every bad parameter named in one error.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { encodePageCursor } from '../../src/domain/page-cursor.js';
import { parsePaymentFilter, type PaymentListQuery } from '../../src/domain/payment-filter.js';

function refusal(query: PaymentListQuery): Record<string, string> {
  try {
    parsePaymentFilter(query);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'validation') return Object.fromEntries(error.fields.map((f) => [f.field, f.message]));
    throw error;
  }
  throw new Error('accepted');
}

describe('payment listing parameters', () => {
  it('lists the first 50 payments when nothing is asked, and takes empty parameters as absent', () => {
    const none = { limit: 50 };
    expect(parsePaymentFilter({})).toEqual(none);
    expect(parsePaymentFilter({ status: '', status_detail: '', from: '', to: '', q: '', limit: '', cursor: '' })).toEqual(none);
  });

  it('reads each filter', () => {
    const cursor = encodePageCursor({ at: 1_700_000_000_000, id: 'abc123def456' });
    expect(
      parsePaymentFilter({
        status: 'done',
        status_detail: 'reversed',
        from: '2024-05-01T12:00:00Z',
        to: '2024-05-02T09:00:00-04:00',
        q: '  Order 42 ',
        limit: '100',
        cursor,
      }),
    ).toEqual({
      status: 'done',
      statusDetail: 'reversed',
      from: new Date('2024-05-01T12:00:00Z'),
      to: new Date('2024-05-02T13:00:00Z'),
      q: 'Order 42',
      after: { at: 1_700_000_000_000, id: 'abc123def456' },
      limit: 100,
    });
  });

  it('reads a date as the day in Chile: from its first instant there', () => {
    // May is winter in Santiago (UTC-4); January summer (UTC-3).
    expect(parsePaymentFilter({ from: '2024-05-01', to: '2024-05-02' })).toMatchObject({
      from: new Date('2024-05-01T04:00:00Z'),
      to: new Date('2024-05-02T04:00:00Z'),
    });
    expect(parsePaymentFilter({ from: '2024-01-31' }).from).toEqual(new Date('2024-01-31T03:00:00Z'));
  });

  it('names every bad parameter in one refusal', () => {
    expect(
      refusal({ status: 'paid', status_detail: 'refunded', from: 'yesterday', to: '2024-02-30', q: 'x'.repeat(101), limit: '0', cursor: 'nonsense' }),
    ).toEqual({
      status: 'must be one of pending, verifying, done',
      status_detail: 'must be one of pending, normal, marked-paid-by-receiver, rejected-by-payer, marked-as-abuse, reversed',
      from: 'must be a date (YYYY-MM-DD, a day in Chile) or an ISO 8601 date-time with a time zone',
      to: 'must be a date (YYYY-MM-DD, a day in Chile) or an ISO 8601 date-time with a time zone',
      q: 'must be at most 100 characters long',
      limit: 'must be a whole number from 1 to 100',
      cursor: 'is not a cursor this listing gave',
    });
  });

  it('bounds the page between 1 and 100 payments and takes whole numbers only', () => {
    expect(parsePaymentFilter({ limit: '1' }).limit).toBe(1);
    for (const limit of ['101', '-1', '2.5', '1e1', ' 5', 'ten']) expect(refusal({ limit }), limit).toEqual({ limit: 'must be a whole number from 1 to 100' });
  });

  it('wants `to` after `from`, and a date-time with its zone', () => {
    expect(refusal({ from: '2024-05-02', to: '2024-05-02' })).toEqual({ to: 'must be after from' });
    expect(Object.keys(refusal({ from: '2024-05-01T10:00:00' }))).toEqual(['from']);
  });

  it('refuses control characters in a search, which could otherwise match across two fields', () => {
    expect(refusal({ q: 'a\u001fb' })).toEqual({ q: 'must not contain control characters' });
    expect(refusal({ q: 'a\nb' })).toEqual({ q: 'must not contain control characters' });
  });
});
