// DemoBank (`Bawdf`), the test bank of developer-mode accounts, as the provider's behaves: any
// valid Chilean RUT with password 1234 logs in; the card coordinates 11 22 33 transfer, 99 99 99
// fail with a bank error, and any other answer leaves the result uncertain until the bank (a
// developer, through the sandbox or the CLI) confirms or fails it. What it did is kept in its
// books (demo-bank-books.ts), which it answers from when asked about a transfer or its credits;
// every transfer, question about one and report of credits is journaled there too. An account whose
// sandbox faults ask for it (domain/sandbox-faults.ts) has every transfer answered uncertain, what
// DemoBank decided held in its books until the fault is removed: then the next question about the
// transfer (the resolve-uncertain-transfers job) gets that decision.
import type { Kysely } from 'kysely';
import { DEMO_BANK_ID } from '../domain/banks.js';
import { formatRut, parseRut } from '../domain/rut.js';
import type { DB } from '../store/schema.js';
import type { BankCall, BankConnector, CreditReport, LoginResult, PayerCredentials, TransferOrder, TransferResult } from './connector.js';
import {
  type BookEntry,
  bookTransfer,
  creditsAfter,
  type DemoBankOperation,
  demoBankCredit,
  demoHolderName,
  findEntry,
  holdTransfer,
  journalRequest,
} from './demo-bank-books.js';
import { demoBankMandates, settleDueDebits } from './demo-bank-mandates.js';
import { DEMO_COORDINATES } from './demo-bank-scenarios.js';

export const DEMO_BANK_PASSWORD = '1234';
export const DEMO_BANK_ERROR = 'Error ejecutando transferencia';
const PAY = DEMO_COORDINATES.pay;
const FAIL = DEMO_COORDINATES.fail;
const CREDITS_PER_REPORT = 500;

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** What DemoBank does with a transfer authorised with these coordinates. */
export function demoBankOutcome(answers: readonly string[]): BookEntry['state'] {
  if (same(answers, PAY)) return 'executed';
  if (same(answers, FAIL)) return 'failed';
  return 'uncertain';
}

function entryFor(order: TransferOrder, state: BookEntry['state'], now: Date): BookEntry {
  if (state !== 'executed') return { state };
  const payer = {
    name: order.payer.holderName,
    email: order.payerEmail,
    personalIdentifier: order.payer.personalIdentifier,
    accountNumber: order.payer.accountNumber,
  };
  // Money to an account Quipu does not collect on is still booked, against that account's number.
  return { state, credit: demoBankCredit({ ...order, account: order.account ?? order.destination.number }, payer, 'simplified_transfer', now) };
}

function resultOf(entry: BookEntry): TransferResult {
  if (entry.state === 'executed') return { status: 'executed', credit: entry.credit };
  return entry.state === 'failed' ? { status: 'failed', message: DEMO_BANK_ERROR } : { status: 'uncertain' };
}

/** Any valid RUT with DemoBank's password signs in, as holder of the account numbered after it. */
export function demoBankLogin(credentials: PayerCredentials): LoginResult {
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
      holderName: demoHolderName(personalIdentifier),
    },
  };
}

/** Coordinates are two digits each: anything else is a typo, asked again. */
export function demoBankAcceptsAnswers(answers: readonly string[]): boolean {
  return answers.length === PAY.length && answers.every((a) => /^\d{2}$/.test(a));
}

/** Journals a request about a transfer with DemoBank's answer, and returns the answer. */
async function answered(db: Kysely<DB>, call: BankCall, operation: DemoBankOperation, order: TransferOrder, result: TransferResult): Promise<TransferResult> {
  await journalRequest(db, { askedAt: call.now, operation, orderId: order.orderId, paymentId: order.reference, cursor: null, answer: result.status });
  return result;
}

export type DemoBankDecision = 'confirm' | 'fail';

/**
 * A developer decides a transfer DemoBank left uncertain (or never received): it is booked executed
 * or failed, and DemoBank says so when asked. One it already executed or failed stays so.
 */
export async function decideTransfer(db: Kysely<DB>, order: TransferOrder, decision: DemoBankDecision, now: Date): Promise<void> {
  await bookTransfer(db, order.orderId, entryFor(order, decision === 'confirm' ? 'executed' : 'failed', now), now, order.account !== null);
}

/**
 * DemoBank, keeping its books in `db`: Quipu's own database, so that the server, the workers and the
 * CLI see one bank. Its methods never use `this`: tests wrap them (vi.spyOn) and call the original unbound.
 */
export function createDemoBank(db: Kysely<DB>): BankConnector {
  return {
    bankId: DEMO_BANK_ID,
    challenge: ['A1', 'B2', 'C3'],

    login: async (credentials) => demoBankLogin(credentials),
    acceptsAnswers: demoBankAcceptsAnswers,

    async transfer(order: TransferOrder, answers: readonly string[], call: BankCall): Promise<TransferResult> {
      const outcome = demoBankOutcome(answers);
      const entry = (await call.transfersHeld())
        ? await holdTransfer(db, order.orderId, outcome, call.now)
        : await bookTransfer(db, order.orderId, entryFor(order, outcome, call.now), call.now, order.account !== null);
      return answered(db, call, 'transfer', order, resultOf(entry));
    },

    async transferStatus(order: TransferOrder, call: BankCall): Promise<TransferResult> {
      let entry = await findEntry(db, order.orderId);
      // The fault is gone: what DemoBank decided is booked now, as if it had just been decided.
      if (entry?.state === 'uncertain' && entry.held !== undefined && !(await call.transfersHeld())) {
        entry = await bookTransfer(db, order.orderId, entryFor(order, entry.held, call.now), call.now, order.account !== null);
      }
      return answered(db, call, 'transfer-status', order, entry ? resultOf(entry) : { status: 'uncertain' });
    },

    async credits(cursor: string | null, call: BankCall): Promise<CreditReport> {
      if (cursor !== null && !/^\d+$/.test(cursor)) throw new Error(`not a DemoBank cursor: ${cursor}`);
      // Debits whose settlement day has come are credited before the credits are reported.
      await settleDueDebits(db, call.time);
      const booked = await creditsAfter(db, cursor === null ? 0 : Number(cursor), CREDITS_PER_REPORT);
      await journalRequest(db, { askedAt: call.now, operation: 'credits', orderId: null, paymentId: null, cursor, answer: `${booked.length} credits` });
      return { credits: booked.map((b) => b.credit), cursor: booked.length > 0 ? String(booked.at(-1)!.seq) : cursor };
    },

    mandates: demoBankMandates(db),
  };
}
