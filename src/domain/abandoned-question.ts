// A transfer still authorizing, or a debit still submitting, after twice the bank's timeout was left
// by a process that stopped while asking the bank (a live request has given up by then): only the
// bank can say whether the money moved, so it is treated as an unanswered question.

/** How long after its last change a question to a bank counts as abandoned, on its account's clock. */
export const abandonedAfterMs = (bankTimeoutMs: number): number => 2 * bankTimeoutMs;
