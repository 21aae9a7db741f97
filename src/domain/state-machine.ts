// The shape of every state machine but a payment's (whose states are status pairs,
// payment-status.ts): a table of events, each allowed from some states and leading to one. A
// mandate, a debit, an operation and a payer's attempt each have their table; the one door of each
// (app/change-*.ts) looks a move up here before it writes, so a move not in the table never happens.

export type Transitions<E extends string, S extends string> = Readonly<Record<E, { readonly from: readonly S[]; readonly to: S }>>;

export class IllegalTransition extends Error {
  constructor(
    readonly machine: string,
    readonly state: string,
    readonly event: string,
  ) {
    super(`a ${machine} in ${state} cannot take event ${event}`);
    this.name = 'IllegalTransition';
  }
}

export function canMove<E extends string, S extends string>(table: Transitions<E, S>, state: S, event: E): boolean {
  return table[event].from.includes(state);
}

/** The state `event` leads to from `state`; throws IllegalTransition for a move not in the table. */
export function nextState<E extends string, S extends string>(machine: string, table: Transitions<E, S>, state: S, event: E): S {
  if (!canMove(table, state, event)) throw new IllegalTransition(machine, state, event);
  return table[event].to;
}
