// DemoBank (`Bawdf`), the test bank of developer-mode accounts, as the provider's behaves: any
// valid Chilean RUT with password 1234 logs in; the card coordinates 11 22 33 transfer, 99 99 99
// fail with a bank error, and any other answer leaves the result uncertain until the bank (a
// developer, through the sandbox) confirms or fails it.
import { DEMO_BANK_ID } from '../domain/banks.js';
import { formatRut, parseRut } from '../domain/rut.js';
import type { BankConnector, LoginResult, PayerCredentials, TransferOrder, TransferResult } from './connector.js';

export const DEMO_BANK_PASSWORD = '1234';
export const DEMO_BANK_ERROR = 'Error ejecutando transferencia';
const PAY = ['11', '22', '33'];
const FAIL = ['99', '99', '99'];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

function executed(order: TransferOrder, now: Date): TransferResult {
  return {
    status: 'executed',
    credit: {
      bankReference: `${DEMO_BANK_ID}-${order.orderId}`,
      account: order.account,
      amount: order.amount,
      currency: order.currency,
      reference: order.reference,
      creditedAt: now,
      payerBankId: DEMO_BANK_ID,
      payerName: order.payer.holderName,
      payerEmail: order.payerEmail,
      payerPersonalIdentifier: order.payer.personalIdentifier,
      payerAccountNumber: order.payer.accountNumber,
      paymentMethod: 'simplified_transfer',
      fundsSource: null,
    },
  };
}

export const demoBank: BankConnector = {
  bankId: DEMO_BANK_ID,
  challenge: ['A1', 'B2', 'C3'],

  async login(credentials: PayerCredentials): Promise<LoginResult> {
    const rut = parseRut(credentials.identifier);
    if (!rut) return { ok: false, error: 'invalid-identifier' };
    if (credentials.password !== DEMO_BANK_PASSWORD) return { ok: false, error: 'wrong-credentials' };
    const personalIdentifier = formatRut(rut);
    return {
      ok: true,
      account: {
        personalIdentifier,
        // The provider's test bank numbers an account after its owner's RUT, zero-padded to 21 digits.
        accountNumber: `${rut.body}${rut.checkDigit}`.padStart(21, '0'),
        holderName: `Cliente DemoBank ${personalIdentifier}`,
      },
    };
  },

  acceptsAnswers(answers: readonly string[]): boolean {
    return answers.length === PAY.length && answers.every((a) => /^\d{2}$/.test(a));
  },

  async transfer(order: TransferOrder, answers: readonly string[], now: Date): Promise<TransferResult> {
    if (same(answers, PAY)) return executed(order, now);
    if (same(answers, FAIL)) return { status: 'failed', message: DEMO_BANK_ERROR };
    return { status: 'uncertain' };
  },

  async settle(order: TransferOrder, outcome: 'confirm' | 'fail', now: Date): Promise<TransferResult> {
    return outcome === 'confirm' ? executed(order, now) : { status: 'failed', message: DEMO_BANK_ERROR };
  },
};
