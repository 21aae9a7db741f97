// The banks Quipu can drive. A bank of the catalogue without a connector can still be paid by a
// normal (manual) transfer, which reaches the payment through reconciliation.
import type { BankConnector } from './connector.js';
import { demoBank } from './demo-bank.js';

const CONNECTORS: ReadonlyMap<string, BankConnector> = new Map([[demoBank.bankId, demoBank]]);

export function connectorFor(bankId: string): BankConnector | undefined {
  return CONNECTORS.get(bankId);
}
