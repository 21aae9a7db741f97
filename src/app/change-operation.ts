// THE place an operation moves: the transition table (domain/operation-status.ts) decides the move
// and the line it adds to the event log, the row changes only if it is still in the state the
// caller saw (compare-and-set: of two requests on one operation, exactly one wins), and a finished
// operation's result message commits with it.
import type { Merchant } from '../domain/merchant.js';
import type { Operation, OperationState } from '../domain/operation.js';
import { type OperationChange, operationMove, operationMoveMessage } from '../domain/operation-status.js';
import { moveOperation } from '../store/operations.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

/** The operation after the move, or undefined when it had already left `from`. */
export async function changeOperation(
  ctx: AppContext,
  merchant: Pick<Merchant, 'notifyUrl'>,
  operation: Operation,
  from: OperationState,
  change: OperationChange,
): Promise<Operation | undefined> {
  const now = ctx.clocks.of(operation.receiverId).now();
  const move = operationMove(operation, from, change, now);
  return inTransaction(ctx.db, async (trx) => {
    if (!(await moveOperation(trx, operation.operationId, from, move))) return undefined;
    const { at: _at, ...fields } = move;
    const moved: Operation = { ...operation, ...fields };
    const message = operationMoveMessage(moved, change.event, merchant.notifyUrl, now);
    if (message) await ctx.outbox.write(trx, message);
    return moved;
  });
}
