import { describe, expect, it } from 'vitest';
import { demoBankAcceptsAnswers, demoBankLogin, demoBankOutcome } from '../../src/bank/demo-bank.js';
import { parseCredits } from '../../src/domain/bank-credit.js';
import { findBank } from '../../src/domain/banks.js';
import { matchCredit } from '../../src/domain/credit-matching.js';
import { DomainError } from '../../src/domain/errors.js';
import { bankRefusal, payerBanks, payerMethods } from '../../src/domain/payer-options.js';
import { ATTEMPT_DURATION_MS, attemptDeadline, isAttemptOpen, payerAllowed, payerBlock } from '../../src/domain/payment-attempt.js';
import { parseStatement, statementFormat } from '../../src/domain/statement.js';

const at = (iso: string) => new Date(iso);
const units = (n: number) => n * 10_000;

describe('attempt windows', () => {
  it('last 3 hours, never beyond the payment', () => {
    const start = at('2026-01-01T10:00:00Z');
    expect(attemptDeadline(start, at('2026-01-02T00:00:00Z')).getTime()).toBe(start.getTime() + ATTEMPT_DURATION_MS);
    expect(attemptDeadline(start, at('2026-01-01T11:00:00Z'))).toEqual(at('2026-01-01T11:00:00Z'));
    const attempt = { expiresAt: at('2026-01-01T13:00:00Z') };
    expect(isAttemptOpen(attempt, at('2026-01-01T12:59:59Z'))).toBe(true);
    expect(isAttemptOpen(attempt, at('2026-01-01T13:00:00Z'))).toBe(false);
  });

  it('tell why a payer cannot pay', () => {
    const expiresAt = at('2026-01-01T12:00:00Z');
    const before = at('2026-01-01T11:00:00Z');
    expect(payerBlock({ status: 'pending', statusDetail: 'pending', expiresAt }, before)).toBeUndefined();
    expect(payerBlock({ status: 'pending', statusDetail: 'pending', expiresAt }, expiresAt)).toBe('expired');
    expect(payerBlock({ status: 'verifying', statusDetail: 'pending', expiresAt }, before)).toBe('verifying');
    expect(payerBlock({ status: 'done', statusDetail: 'normal', expiresAt }, before)).toBe('paid');
    expect(payerBlock({ status: 'pending', statusDetail: 'rejected-by-payer', expiresAt }, before)).toBe('declined');
    expect(payerBlock({ status: 'pending', statusDetail: 'marked-as-abuse', expiresAt }, before)).toBe('declined');
  });

  it('let only the fixed payer pay, comparing RUTs by value', () => {
    expect(payerAllowed(null, '11.111.111-1')).toBe(true);
    expect(payerAllowed('111111111', '11.111.111-1')).toBe(true);
    expect(payerAllowed('10.000.013-k', '10000013-K')).toBe(true);
    expect(payerAllowed('44.444.444-4', '11.111.111-1')).toBe(false);
    expect(payerAllowed('AB-12', 'ab12')).toBe(true);
  });
});

describe('payer options', () => {
  const merchant = { paymentMethods: ['SIMPLIFIED_TRANSFER', 'REGULAR_TRANSFER'] };
  it('offer the mandatory method only', () => {
    expect(payerMethods({ mandatoryPaymentMethod: null }, merchant).map((m) => m.id)).toEqual(['SIMPLIFIED_TRANSFER', 'REGULAR_TRANSFER']);
    expect(payerMethods({ mandatoryPaymentMethod: 'REGULAR_TRANSFER' }, merchant).map((m) => m.id)).toEqual(['REGULAR_TRANSFER']);
    expect(payerMethods({ mandatoryPaymentMethod: null }, { paymentMethods: ['REGULAR_TRANSFER'] }).map((m) => m.id)).toEqual(['REGULAR_TRANSFER']);
  });

  it('offer the fixed bank only, and refuse banks below their minimum or in another currency', () => {
    expect(payerBanks({ amount: units(1000), currency: 'CLP', bankId: 'Bawdf' }, true).map((b) => b.bank.bankId)).toEqual(['Bawdf']);
    expect(payerBanks({ amount: units(1000), currency: 'CLP', bankId: null }, false).some((b) => b.bank.bankId === 'Bawdf')).toBe(false);
    const estado = findBank('SDdGj', false)!;
    expect(bankRefusal(estado, { amount: units(999), currency: 'CLP' })).toBe('min-amount');
    expect(bankRefusal(estado, { amount: units(1000), currency: 'CLP' })).toBeUndefined();
    expect(bankRefusal(estado, { amount: units(1000), currency: 'USD' })).toBe('currency');
  });
});

describe('credit matching', () => {
  const INSTALLATION_ACCOUNT = '000000000000076543210';
  const payment = {
    paymentId: 'abcdefghijkl',
    collectAccountUuid: 'acc-1',
    amount: units(1000),
    currency: 'CLP',
    status: 'pending' as const,
    statusDetail: 'pending' as const,
    fixedPayerPersonalIdentifier: null as string | null,
    bankId: null as string | null,
    mandatoryPaymentMethod: null as string | null,
  };
  const credit = {
    account: 'acc-1',
    amount: units(1000),
    currency: 'CLP',
    reference: 'abcdefghijkl' as string | null,
    payerBankId: 'dfFbF' as string | null,
    payerPersonalIdentifier: '12.345.678-5' as string | null,
    paymentMethod: null as 'simplified_transfer' | 'regular_transfer' | null,
  };
  const reason = (c: Partial<typeof credit>, p: Partial<typeof payment> | null = {}) => {
    const result = matchCredit({ ...credit, ...c }, p === null ? undefined : ({ ...payment, ...p } as typeof payment), INSTALLATION_ACCOUNT);
    return result.matched ? 'matched' : result.reason;
  };

  it('matches exactly on account, currency, amount and reference', () => {
    expect(reason({})).toBe('matched');
    expect(reason({}, { status: 'verifying' } as never)).toBe('matched');
    expect(reason({ account: INSTALLATION_ACCOUNT })).toBe('matched');
    expect(reason({ reference: 'ABCDEFGHIJKL' })).toContain('no payment has the reference');
    expect(reason({ reference: ' abcdefghijkl ' })).toContain('no payment has the reference');
  });

  it('explains every mismatch', () => {
    expect(reason({ reference: null })).toContain('no payment reference');
    expect(reason({}, null)).toContain('no payment has the reference');
    expect(reason({ account: 'acc-2' })).toContain('another account');
    expect(reason({ currency: 'USD' })).toContain('in CLP, the credit in USD');
    expect(reason({ amount: units(1000) + 1 })).toContain('amount differs');
    expect(reason({}, { status: 'done', statusDetail: 'normal' } as never)).toContain('cannot be reconciled');
    expect(reason({}, { statusDetail: 'rejected-by-payer' } as never)).toContain('cannot be reconciled');
  });

  it('keeps to what the merchant fixed: the payer, the bank and the method', () => {
    expect(reason({}, { fixedPayerPersonalIdentifier: '123456785' })).toBe('matched');
    expect(reason({}, { fixedPayerPersonalIdentifier: '11.111.111-1' })).toBe(
      'payment abcdefghijkl may only be paid by 11.111.111-1, the credit comes from 12.345.678-5',
    );
    expect(reason({ payerPersonalIdentifier: null }, { fixedPayerPersonalIdentifier: '11.111.111-1' })).toContain('the credit comes from an unnamed payer');
    expect(reason({}, { bankId: 'dfFbF' })).toBe('matched');
    expect(reason({}, { bankId: 'LrNcd' })).toBe('payment abcdefghijkl may only be paid from bank LrNcd, the credit comes from dfFbF');
    expect(reason({ payerBankId: null }, { bankId: 'LrNcd' })).toContain('the credit comes from an unnamed bank');
    expect(reason({}, { mandatoryPaymentMethod: 'SIMPLIFIED_TRANSFER' })).toBe(
      'payment abcdefghijkl may only be paid by simplified_transfer, the credit is a regular_transfer',
    );
    expect(reason({ paymentMethod: 'simplified_transfer' }, { mandatoryPaymentMethod: 'SIMPLIFIED_TRANSFER' })).toBe('matched');
    expect(reason({ paymentMethod: 'simplified_transfer' }, { mandatoryPaymentMethod: 'REGULAR_TRANSFER' })).toContain('may only be paid by regular_transfer');
  });
});

describe('credit records and statements', () => {
  const row = { bank_reference: 'r1', account: 'acc', amount: '1000.00', currency: 'CLP', credited_at: '2026-01-01T10:00:00-03:00' };

  it('decode exact amounts and optional fields', () => {
    const [credit] = parseCredits([{ ...row, reference: 'x', funds_source: 'debit' }], (i) => `#${i}`);
    expect(credit).toMatchObject({
      bankReference: 'r1',
      amount: units(1000),
      reference: 'x',
      fundsSource: 'debit',
      payerName: null,
      creditedAt: at('2026-01-01T13:00:00Z'),
    });
    expect(parseCredits([{ ...row, currency: 'CLF', amount: '0.0001' }], String)[0]!.amount).toBe(1);
  });

  it('refuse a batch naming each bad record and field', () => {
    try {
      parseCredits([row, { ...row, amount: '1.5', extra: 'x' }, { currency: 'XXX' }], (i) => `credits.${i}`);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      const fields = (error as DomainError).fields.map((f) => f.field);
      expect(fields).toEqual(
        expect.arrayContaining(['credits.1.amount', 'credits.1.extra', 'credits.2.bank_reference', 'credits.2.currency', 'credits.2.credited_at']),
      );
      expect(fields.some((f) => f.startsWith('credits.0'))).toBe(false);
    }
  });

  it('refuse an empty bank_reference or account: a second unreferenced movement would be dropped as a repeat', () => {
    const empty = (field: string) => () => parseCredits([{ ...row, [field]: '' }], (i) => `credits.${i}`);
    expect(empty('bank_reference')).toThrow(DomainError);
    expect(empty('account')).toThrow(DomainError);
  });

  it('read CSV (quoted cells, BOM, blank lines) and JSON lines, numbering lines as the file does', () => {
    const csv = '\uFEFFbank_reference,account,amount,currency,credited_at,payer_name\n\nr1,acc,1000,CLP,2026-01-01T10:00:00Z,"Soto, María ""Mery"""\n';
    expect(parseStatement(csv, 'csv')[0]!.payerName).toBe('Soto, María "Mery"');
    const jsonl = `${JSON.stringify(row)}\n\n${JSON.stringify({ ...row, bank_reference: 'r2', amount: 5 })}\n`;
    expect(parseStatement(jsonl, 'jsonl').map((c) => c.amount)).toEqual([units(1000), units(5)]);
    const fieldsOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as DomainError).fields.map((f) => f.field);
      }
      return [];
    };
    expect(fieldsOf(() => parseStatement(`${JSON.stringify(row)}\nnot json\n[1]\n`, 'jsonl'))).toEqual(['line 2', 'line 3']);
    expect(
      fieldsOf(() =>
        parseStatement('bank_reference,account,amount,currency,credited_at\nr1,acc,1,CLP,2026-01-01T10:00:00Z\nr2,acc,x,CLP,2026-01-01T10:00:00Z\n', 'csv'),
      ),
    ).toEqual(['line 3.amount']);
    expect(fieldsOf(() => parseStatement('a,b\n"unclosed,1\n', 'csv'))[0]).toMatch(/^line /);
  });

  it('tell CSV from JSON lines by name, then by content', () => {
    expect(statementFormat('x.CSV', '{')).toBe('csv');
    expect(statementFormat('x.ndjson', 'a,b')).toBe('jsonl');
    expect(statementFormat('statement', '  {"a":1}')).toBe('jsonl');
    expect(statementFormat('statement', 'a,b')).toBe('csv');
  });
});

describe('DemoBank', () => {
  it('logs in any valid RUT with password 1234', async () => {
    expect(demoBankLogin({ identifier: '44.444.444-4', password: '1234' })).toEqual({
      ok: true,
      account: { personalIdentifier: '44.444.444-4', accountNumber: '000000000000444444444', holderName: 'Cliente DemoBank 44.444.444-4' },
    });
    expect(demoBankLogin({ identifier: '44.444.444-5', password: '1234' })).toEqual({ ok: false, error: 'invalid-identifier' });
    expect(demoBankLogin({ identifier: '44.444.444-4', password: '12345' })).toEqual({ ok: false, error: 'wrong-credentials' });
  });

  it('transfers on 11 22 33, fails on 99 99 99, and leaves anything else uncertain', () => {
    expect(demoBankOutcome(['11', '22', '33'])).toBe('executed');
    expect(demoBankOutcome(['99', '99', '99'])).toBe('failed');
    expect(demoBankOutcome(['11', '22', '34'])).toBe('uncertain');
  });

  it('asks again for answers that are not two digits each', () => {
    expect(demoBankAcceptsAnswers(['11', '22', '33'])).toBe(true);
    expect(demoBankAcceptsAnswers(['11', '22'])).toBe(false);
    expect(demoBankAcceptsAnswers(['1', '22', '33'])).toBe(false);
    expect(demoBankAcceptsAnswers(['aa', '22', '33'])).toBe(false);
  });
});
