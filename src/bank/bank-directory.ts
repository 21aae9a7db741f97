// The banks this process can drive, built by the composition root (src/main/bank-connectors.ts). A
// bank of the catalogue without a connector can still be paid by a normal (manual) transfer, which
// reaches the payment through reconciliation.
import type { BankConnector, MandateBank } from './connector.js';

export class BankDirectory {
  readonly #connectors = new Map<string, BankConnector>();

  constructor(connectors: readonly BankConnector[]) {
    for (const connector of connectors) this.add(connector);
  }

  /** Makes a bank drivable in a running process; returns what undoes it. Tests add scripted banks here. */
  add(connector: BankConnector): () => void {
    if (this.#connectors.has(connector.bankId)) throw new Error(`bank ${connector.bankId} already has a connector`);
    this.#connectors.set(connector.bankId, connector);
    return () => this.#connectors.delete(connector.bankId);
  }

  /** A connector takes the place of a bank's own (a test's scripted DemoBank); returns what puts the bank's own back. */
  standIn(connector: BankConnector): () => void {
    const own = this.#connectors.get(connector.bankId);
    if (!own) throw new Error(`bank ${connector.bankId} has no connector to stand in for`);
    this.#connectors.set(connector.bankId, connector);
    return () => this.#connectors.set(connector.bankId, own);
  }

  connectorFor(bankId: string): BankConnector | undefined {
    return this.#connectors.get(bankId);
  }

  mandatesAt(bankId: string): MandateBank | undefined {
    return this.#connectors.get(bankId)?.mandates;
  }

  /** Every bank this process drives, for housekeeping to ask about transfers and credits. */
  all(): BankConnector[] {
    return [...this.#connectors.values()];
  }
}
