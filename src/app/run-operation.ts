// A payer runs an operation at its origin bank, Quipu playing the provider's SDK: sign in, then
// authorise the transfer to the descriptor's target account. The operation is claimed (authenticated
// → running) and that claim committed before the bank is asked (ask-bank.ts), so a double submit or
// a second tab reaches the bank once, and DemoBank books one order per operation id. The bank's
// answer is the operation's result, written with its message to the event log in one transaction.
import type { PayerCredentials, TargetAccount, TransferOrder, TransferResult } from '../bank/connector.js';
import { connectorFor } from '../bank/registry.js';
import { type Bank, banksFor, findBank } from '../domain/banks.js';
import { DomainError, fieldError, stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { type Operation, operationBlock, operationEvent, type OperationState, operationResult, operationResultMessage, transferTerms, type TransferTerms } from '../domain/operation.js';
import type { DescriptorContent } from '../domain/operation-descriptor.js';
import { findOperation, moveOperation } from '../store/operations.js';
import { inTransaction } from '../store/transaction.js';
import { askBankToMoveMoney } from './ask-bank.js';
import { loginFailure } from './bank-login.js';
import type { AppContext } from './context.js';
import { signInAtInstitution } from './institution-sign-in.js';
import { openOperation } from './operation-queries.js';

/** The banks a payer of this account may run an operation at: those Quipu can drive (DemoBank for developer accounts). */
export function operationBanks(merchant: Pick<Merchant, 'developer'>): Bank[] {
  return banksFor(merchant.developer).filter((bank) => connectorFor(bank.bankId) !== undefined);
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
  const block = operationBlock(operation, ctx.clock.now());
  if (block) throw stateError(BLOCKS[block]);
  const terms = transferTerms(content!.params);
  if (!terms) throw new DomainError('forbidden', 'This descriptor names no amount or no target account: it cannot be run');
  return { operation, content: content!, merchant, terms };
}

export async function signInForOperation(ctx: AppContext, operationId: string, bankId: string | undefined, credentials: PayerCredentials): Promise<void> {
  const { operation, content, merchant } = await runnableOperation(ctx, operationId);
  if (operation.state !== 'issued') throw stateError('The payer already signed in to the bank for this operation');
  const bank = originBank(content, merchant) ?? operationBanks(merchant).find((b) => b.bankId === bankId);
  if (!bank) throw fieldError('bank_id', 'is not a bank this operation can run at');
  const connector = connectorFor(bank.bankId);
  if (!connector) throw new DomainError('forbidden', 'Quipu has no connection to this bank');
  const login = await signInAtInstitution(ctx, connector, credentials);
  if (!login.ok) throw loginFailure(login.failure);
  const now = ctx.clock.now();
  const update = {
    state: 'authenticated',
    bank_id: bank.bankId,
    payer_identifier: login.account.personalIdentifier,
    payer_account: login.account.accountNumber,
    payer_name: login.account.holderName,
    updated_at: now.getTime(),
  };
  if (!(await moveOperation(ctx.db, operation, 'issued', update, operationEvent('PAYER_AUTHENTICATED', now)))) {
    throw stateError('The payer already signed in to the bank for this operation');
  }
}

function targetOf(content: DescriptorContent, terms: TransferTerms): TargetAccount {
  const p = content.params;
  return { number: terms.accountNumber, holderName: p.target_account_name ?? null, holderIdentifier: p.target_account_personal_identifier ?? null, bankName: p.target_account_bank ?? null };
}

const AFTER: Record<TransferResult['status'], { state: OperationState; event: string; type: 'info' | 'error' | 'warning' }> = {
  executed: { state: 'ok', event: 'TRANSFER_EXECUTED', type: 'info' },
  failed: { state: 'error', event: 'TRANSFER_FAILED', type: 'error' },
  uncertain: { state: 'warning', event: 'TRANSFER_UNCERTAIN', type: 'warning' },
};

/** The payer answers the bank's challenge: the transfer is made at most once, and its answer is the operation's result. */
export async function runOperation(ctx: AppContext, operationId: string, answers: readonly string[]): Promise<Operation> {
  const { operation, content, merchant, terms } = await runnableOperation(ctx, operationId);
  if (operation.state !== 'authenticated') throw stateError('The payer has not signed in to the bank for this operation');
  const connector = connectorFor(operation.bankId!);
  if (!connector) throw new DomainError('forbidden', 'Quipu has no connection to this bank');
  if (!connector.acceptsAnswers(answers)) throw fieldError('coordinates', 'must be the two digits of each coordinate asked');
  const claimedAt = ctx.clock.now();
  if (!(await moveOperation(ctx.db, operation, 'authenticated', { state: 'running', updated_at: claimedAt.getTime() }, operationEvent('TRANSFER_SUBMITTED', claimedAt)))) {
    throw stateError('This operation already ran');
  }
  const running = (await findOperation(ctx.db, operation.operationId))!;
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
  const after = AFTER[result.status];
  const now = ctx.clock.now();
  return inTransaction(ctx.db, async (trx) => {
    const update = { state: after.state, failure: result.status === 'failed' ? result.message : null, updated_at: now.getTime() };
    if (!(await moveOperation(trx, running, 'running', update, operationEvent(after.event, now, after.type)))) throw stateError('The bank already answered for this operation');
    const finished = (await findOperation(trx, operation.operationId))!;
    if (merchant.notifyUrl) await ctx.outbox.write(trx, operationResultMessage(operationResult(finished, now), merchant.receiverId, merchant.notifyUrl));
    return finished;
  });
}
