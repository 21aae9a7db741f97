// Every bank connector this installation runs, one row each: a second bank is its folder under
// src/bank/ and one row here, built from the configuration and what the process holds.
import type { Kysely } from 'kysely';
import { BankDirectory } from '../bank/bank-directory.js';
import type { BankConnector } from '../bank/connector.js';
import { createDemoBank } from '../bank/demo-bank.js';
import type { Config } from '../config.js';
import type { DB } from '../store/schema.js';

export interface ConnectorDependencies {
  config: Config;
  /** Quipu's database: the simulated DemoBank keeps its books there; a real bank's adapter asks its bank. */
  db: Kysely<DB>;
}

const CONNECTORS: readonly ((deps: ConnectorDependencies) => BankConnector)[] = [
  // Every installation has developer-mode accounts' test bank; the catalogue shows it to them only.
  ({ db }) => createDemoBank(db),
];

export function bankDirectory(deps: ConnectorDependencies): BankDirectory {
  return new BankDirectory(CONNECTORS.map((build) => build(deps)));
}
