// DemoBank's test values beside its forms (the payer's sign-in and coordinates, the mandate signing
// steps, the operation pages' sign-in and coordinates, its portal), so a developer need not look them up: the scenario table's values
// (bank/demo-bank-scenarios.ts), each with what it does. DemoBank is a bank of developer-mode
// accounts only, and the pages ask atDemoBank besides: a production account's page never shows them.
import { DEMO_BANK_PASSWORD } from '../bank/demo-bank.js';
import { DEMO_COORDINATES, DEMO_RUT, INSUFFICIENT_FUNDS_RUT, PENDING_APPROVAL_RUT } from '../bank/demo-bank-scenarios.js';
import { DEMO_BANK_ID } from '../domain/banks.js';
import type { Merchant } from '../domain/merchant.js';
import { type Html, html } from '../render/html.js';
import type { Messages } from '../render/words.js';

export type DemoBankStep =
  'payment-login' | 'payment-authorize' | 'mandate-login' | 'mandate-sign' | 'portal-login' | 'operation-login' | 'operation-authorize';

/** Whether a step at this bank, for this account, is DemoBank's in developer mode. */
export const atDemoBank = (bankId: string, merchant: Pick<Merchant, 'developer'>) => bankId === DEMO_BANK_ID && merchant.developer;

function rows(t: Messages['demoBankTestValues'], step: DemoBankStep): [value: string, effect: string][] {
  const password: [string, string] = [DEMO_BANK_PASSWORD, t.password];
  const coordinates = (answers: readonly string[]) => answers.join(' ');
  switch (step) {
    case 'payment-login':
    case 'operation-login':
      return [[DEMO_RUT, t.anyRut], password];
    case 'payment-authorize':
      return [
        [coordinates(DEMO_COORDINATES.pay), t.transferPays],
        [coordinates(DEMO_COORDINATES.fail), t.transferFails],
        [coordinates(DEMO_COORDINATES.uncertain), t.transferUncertain],
      ];
    case 'mandate-login':
      return [[DEMO_RUT, t.mandateAnyRut], [PENDING_APPROVAL_RUT, t.pendingApproval], [INSUFFICIENT_FUNDS_RUT, t.insufficientFunds], password];
    case 'mandate-sign':
      return [
        [coordinates(DEMO_COORDINATES.pay), t.mandateSigns],
        [coordinates(DEMO_COORDINATES.fail), t.mandateRejected],
      ];
    case 'operation-authorize':
      return [
        [coordinates(DEMO_COORDINATES.pay), t.operationPays],
        [coordinates(DEMO_COORDINATES.fail), t.operationFails],
        [coordinates(DEMO_COORDINATES.uncertain), t.operationUncertain],
      ];
    case 'portal-login':
      return [[DEMO_RUT, t.portalRut], password];
  }
}

export function demoBankTestValues(m: Messages, step: DemoBankStep): Html {
  const t = m.demoBankTestValues;
  return html`<aside class="test-values" data-step="${step}"><h2>${t.title}</h2>
<dl>${rows(t, step).map(([value, effect]) => html`<dt><code>${value}</code></dt><dd>${effect}</dd>`)}</dl>
</aside>`;
}
