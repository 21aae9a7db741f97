// An operation issued with a descriptor and run once by a payer at their bank, Quipu playing the
// provider's SDK: the payer signs in, authorises the transfer, and the bank's answer is the
// operation's result, shaped as the SDKs return it to the app ({operationId, result, ...}).
import type { MessageDraft } from './message-kinds.js';
import { DEFAULT_CURRENCY, type DescriptorParams } from './operation-descriptor.js';
import { parseAmount, SCALE } from './money.js';

export const OPERATION_STATES = [
  /** Issued: nobody has run it yet. */
  'issued',
  /** The payer signed in at the origin bank. */
  'authenticated',
  /** The bank is being asked to transfer: no second request may ask too. */
  'running',
  /** The bank transferred. */
  'ok',
  /** The bank surely did not transfer. */
  'error',
  /** The bank did not say whether it transferred. */
  'warning',
] as const;
export type OperationState = (typeof OPERATION_STATES)[number];

/** The states an operation ends in: it ran, and cannot run again. */
const FINISHED_STATES: readonly OperationState[] = ['ok', 'error', 'warning'];

export interface OperationEvent {
  name: string;
  type: 'info' | 'error' | 'warning';
  timestamp: string;
}

export interface Operation {
  operationId: string;
  receiverId: number;
  keyId: string;
  bank: string;
  description: string;
  state: OperationState;
  bankId: string | null;
  payerIdentifier: string | null;
  payerAccount: string | null;
  payerName: string | null;
  failure: string | null;
  events: OperationEvent[];
  expiresAt: Date;
  createdAt: Date;
}

export function isExpired(operation: Pick<Operation, 'expiresAt'>, now: Date): boolean {
  return now >= operation.expiresAt;
}

export function isFinished(state: OperationState): boolean {
  return FINISHED_STATES.includes(state);
}

/** Why a payer cannot go on with this operation now, or undefined when they can. */
export function operationBlock(operation: Pick<Operation, 'state' | 'expiresAt'>, now: Date): 'ran' | 'running' | 'expired' | undefined {
  if (isFinished(operation.state)) return 'ran';
  if (operation.state === 'running') return 'running';
  return isExpired(operation, now) ? 'expired' : undefined;
}

export function operationEvent(name: string, at: Date, type: OperationEvent['type'] = 'info'): OperationEvent {
  return { name, type, timestamp: at.toISOString() };
}

export interface TransferTerms {
  amount: number;
  currency: string;
  accountNumber: string;
}

/** The amount a descriptor names and its currency, or undefined when it names no amount. */
export function descriptorAmount(params: DescriptorParams): Omit<TransferTerms, 'accountNumber'> | undefined {
  const amount = params.amount === undefined ? undefined : parseAmount(params.amount, SCALE);
  return amount?.ok ? { amount: amount.units, currency: params.currency_code ?? DEFAULT_CURRENCY } : undefined;
}

/** What a transfer needs of the descriptor, or undefined when it names no amount or no target account. */
export function transferTerms(params: DescriptorParams): TransferTerms | undefined {
  const money = descriptorAmount(params);
  if (!money || params.target_account_number === undefined) return undefined;
  return { ...money, accountNumber: params.target_account_number };
}

export const SDK_RESULTS = ['OK', 'ERROR', 'WARNING', 'CONTINUE'] as const;
export type SdkResult = (typeof SDK_RESULTS)[number];

/** The result an SDK returns to the app, here read by the merchant's server. */
export interface OperationResult {
  operationId: string;
  result: SdkResult;
  failureReason?: string;
  exitTitle: string;
  exitMessage: string;
  exitUrl?: string;
  events: OperationEvent[];
}

/** The result of an operation as it stands at `now`: CONTINUE while it can still run. */
export function operationResult(operation: Operation, now: Date): OperationResult {
  const common = { operationId: operation.operationId, events: operation.events };
  switch (operation.state) {
    case 'ok':
      return { ...common, result: 'OK', exitTitle: 'Transferencia realizada', exitMessage: 'El banco realizó la transferencia.' };
    case 'error':
      return {
        ...common,
        result: 'ERROR',
        failureReason: 'TRANSFER_FAILED',
        exitTitle: 'Transferencia no realizada',
        exitMessage: operation.failure ?? 'El banco no realizó la transferencia.',
      };
    case 'warning':
      return {
        ...common,
        result: 'WARNING',
        failureReason: 'TRANSFER_UNCERTAIN',
        exitTitle: 'Transferencia sin confirmar',
        exitMessage: 'El banco no confirmó si realizó la transferencia: revisa la cuenta de destino.',
      };
    case 'running':
      return { ...common, result: 'CONTINUE', exitTitle: 'Transferencia en curso', exitMessage: 'El banco está procesando la transferencia.' };
    default:
      if (isExpired(operation, now)) {
        return {
          ...common,
          result: 'ERROR',
          failureReason: 'OPERATION_EXPIRED',
          exitTitle: 'Operación vencida',
          exitMessage: 'La operación venció sin que se realizara la transferencia.',
        };
      }
      return { ...common, result: 'CONTINUE', exitTitle: 'Operación pendiente', exitMessage: 'La transferencia aún no se ha realizado.' };
  }
}

/** The result of a finished operation, as the event log records it: sent to the account's notify_url. */
export function operationResultMessage(result: OperationResult, receiverId: number, notifyUrl: string): MessageDraft {
  return { kind: 'operation.result', receiverId, subjectId: result.operationId, url: notifyUrl, contentType: 'application/json', body: JSON.stringify(result) };
}
