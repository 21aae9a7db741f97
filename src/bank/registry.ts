// The banks Quipu can drive. A bank of the catalogue without a connector can still be paid by a
// normal (manual) transfer, which reaches the payment through reconciliation.
import type { BankConnector } from './connector.js';
import { demoBank } from './demo-bank.js';

const CONNECTORS = new Map<string, BankConnector>();

/**
 * Makes a bank of the catalogue drivable; returns what undoes it. Each adapter is registered here
 * when this module loads; tests register their own institutions through the same door.
 */
export function registerConnector(connector: BankConnector): () => void {
  if (CONNECTORS.has(connector.bankId)) throw new Error(`bank ${connector.bankId} already has a connector`);
  CONNECTORS.set(connector.bankId, connector);
  return () => CONNECTORS.delete(connector.bankId);
}

registerConnector(demoBank);

export function connectorFor(bankId: string): BankConnector | undefined {
  return CONNECTORS.get(bankId);
}

/** Every bank Quipu can drive, for housekeeping to ask about transfers and credits. */
export function allConnectors(): BankConnector[] {
  return [...CONNECTORS.values()];
}
