// A payer runs an operation at its origin bank, Quipu playing the provider's SDK: sign in, then
// authorise the transfer to the descriptor's target account. The operation is claimed (authenticated
// → running) and that claim committed before the bank is asked (ask-bank.ts), so a double submit or
// a second tab reaches the bank once, and DemoBank books one order per operation id. The bank's
// answer is the operation's result, written with its message to the event log in one transaction.
import type { PayerCredentials, TargetAccount, TransferOrder, TransferResult } from '../bank/connector.js';
import { type Bank, banksFor, findBank } from '../domain/banks.js';
import { DomainError, fieldError, stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { type Operation, operationBlock, transferTerms, type TransferTerms } from '../domain/operation.js';
import type { OperationChange } from '../domain/operation-status.js';
import type { DescriptorContent } from '../domain/operation-descriptor.js';
import { askBankToMoveMoney } from './ask-bank.js';
import { loginFailure } from './bank-login.js';
import { changeOperation } from './change-operation.js';
import type { AppContext } from './context.js';
import { signInAtInstitution } from './institution-sign-in.js';
import { openOperation } from './operation-queries.js';

/** The banks a payer of this account may run an operation at: those Quipu can drive (DemoBank for developer accounts). */
export function operationBanks(ctx: AppContext, merchant: Pick<Merchant, 'developer'>): Bank[] {
  return banksFor(merchant.developer).filter((bank) => ctx.banks.connectorFor(bank.bankId) !== undefined);
}

/** The descriptor's origin bank when it names one of the catalogue; otherwise the payer picks. */
export function originBank(content: Pick<DescriptorContent, 'bank'>, merchant: Pick<Merchant, 'developer'>): Bank | undefined {
  return findBank(content.bank, merchant.developer);
}

const BLOCKS = {
  ran: 'This operation already ran',
  running: 'This operation is running at the bank',
  expired: 'This operation has expired',
} as const;

export interface RunnableOperation {
  operation: Operation;
  content: DescriptorContent;
  merchant: Merchant;
  terms: TransferTerms;
}

/** The operation, if a payer may go on with it now: not run, not running, not expired, and naming what to transfer. */
export async function runnableOperation(ctx: AppContext, ref: string): Promise<RunnableOperation> {
  const { operation, content, merchant } = await openOperation(ctx, ref);
  const block = operationBlock(operation, ctx.clocks.of(operation.receiverId).now());
  if (block) throw stateError(BLOCKS[block]);
  const terms = transferTerms(content!.params);
  if (!terms) throw new DomainError('forbidden', 'This descriptor names no amount or no target account: it cannot be run');
  return { operation, content: content!, merchant, terms };
}

export async function signInForOperation(ctx: AppContext, operationId: string, bankId: string | undefined, credentials: PayerCredentials): Promise<void> {
  const { operation, content, merchant } = await runnableOperation(ctx, operationId);
  if (operation.state !== 'issued') throw stateError('The payer already signed in to the bank for this operation');
  const bank = originBank(content, merchant) ?? operationBanks(ctx, merchant).find((b) => b.bankId === bankId);
  if (!bank) throw fieldError('bank_id', 'is not a bank this operation can run at');
  const connector = ctx.banks.connectorFor(bank.bankId);
  if (!connector) throw new DomainError('forbidden', 'Quipu has no connection to this bank');
  const login = await signInAtInstitution(ctx, connector, credentials);
  if (!login.ok) throw loginFailure(login.failure);
  if (!(await changeOperation(ctx, merchant, operation, 'issued', { event: 'payer-authenticated', bankId: bank.bankId, payer: login.account }))) {
    throw stateError('The payer already signed in to the bank for this operation');
  }
}

function targetOf(content: DescriptorContent, terms: TransferTerms): TargetAccount {
  const p = content.params;
  return {
    number: terms.accountNumber,
    holderName: p.target_account_name ?? null,
    holderIdentifier: p.target_account_personal_identifier ?? null,
    bankName: p.target_account_bank ?? null,
  };
}

/** The move the bank's answer makes of the running operation. */
function changeOf(result: TransferResult): OperationChange {
  if (result.status === 'failed') return { event: 'transfer-failed', message: result.message };
  return { event: result.status === 'executed' ? 'transfer-executed' : 'transfer-uncertain' };
}

/** The payer answers the bank's challenge: the transfer is made at most once, and its answer is the operation's result. */
export async function runOperation(ctx: AppContext, operationId: string, answers: readonly string[]): Promise<Operation> {
  const { operation, content, merchant, terms } = await runnableOperation(ctx, operationId);
  if (operation.state !== 'authenticated') throw stateError('The payer has not signed in to the bank for this operation');
  const connector = ctx.banks.connectorFor(operation.bankId!);
  if (!connector) throw new DomainError('forbidden', 'Quipu has no connection to this bank');
  if (!connector.acceptsAnswers(answers)) throw fieldError('coordinates', 'must be the two digits of each coordinate asked');
  const running = await changeOperation(ctx, merchant, operation, 'authenticated', { event: 'transfer-submitted' });
  if (!running) throw stateError('This operation already ran');
  const order: TransferOrder = {
    orderId: operation.operationId,
    reference: operation.operationId,
    account: null,
    destination: targetOf(content, terms),
    amount: terms.amount,
    currency: terms.currency,
    payer: { personalIdentifier: operation.payerIdentifier!, accountNumber: operation.payerAccount!, holderName: operation.payerName! },
    payerEmail: content.params.payer_email ?? '',
  };
  const result = await askBankToMoveMoney(ctx, { orderId: order.orderId, bankId: connector.bankId }, (call) => connector.transfer(order, answers, call));
  const finished = await changeOperation(ctx, merchant, running, 'running', changeOf(result));
  if (!finished) throw stateError('The bank already answered for this operation');
  return finished;
}
