// The operation pages' content. What the payer reads of the transfer (target account, amount,
// subject) comes from the descriptor, never from the URL; every value goes through the escaping
// `html` template.
import type { Bank } from '../../domain/banks.js';
import type { Merchant } from '../../domain/merchant.js';
import type { Operation, SdkResult, TransferTerms } from '../../domain/operation.js';
import type { DescriptorContent } from '../../domain/operation-descriptor.js';
import { formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import type { Messages } from '../../render/words.js';
import { atDemoBank, demoBankTestValues } from '../demobank-test-values.js';
import { bankLoginForm, bankNotice, challengeForm, errorLine, type FormErrors } from '../payer/pages.js';

export const OPERATION_PAGES_PATH = '/operation';
export const operationPath = (operation: Pick<Operation, 'operationId'>) => `${OPERATION_PAGES_PATH}/${operation.operationId}`;

export interface OperationView {
  m: Messages;
  operation: Operation;
  content: DescriptorContent;
  merchant: Merchant;
  terms: TransferTerms;
}

const amountOf = ({ m, terms }: Pick<OperationView, 'm' | 'terms'>) => formatMoney(terms.amount, terms.currency, m);

const row = (label: string, className: string, value: string | undefined) => (value ? html`<dt>${label}</dt><dd class="${className}">${value}</dd>` : '');

export function transferSummary(view: OperationView): Html {
  const { m, content, merchant } = view;
  const p = content.params;
  return html`<dl class="summary">
<dt>${m.merchant}</dt><dd class="merchant">${merchant.name}</dd>
${row(m.subject, 'subject', p.subject)}
<dt>${m.amount}</dt><dd class="amount">${amountOf(view)}</dd>
</dl>
<h2>${m.operation.target}</h2>
<dl class="transfer">
${row(m.operation.targetName, 'target-name', p.target_account_name)}
<dt>${m.operation.targetNumber}</dt><dd class="target-number">${view.terms.accountNumber}</dd>
${row(m.operation.targetBank, 'target-bank', p.target_account_bank)}
${row(m.operation.targetIdentifier, 'target-identifier', p.target_account_personal_identifier)}
${row(m.operation.targetAlias, 'target-alias', p.target_account_alias)}
</dl>`;
}

/** The payer picks a bank (a plain GET form: choosing changes nothing) when the descriptor names none Quipu knows. */
export function chooseBankPage(view: OperationView, banks: readonly Bank[], errors: FormErrors): Html {
  const { m } = view;
  if (banks.length === 0) return html`${transferSummary(view)}<p class="notice" id="no-banks">${m.operation.noBanks}</p>`;
  return html`<p>${m.operation.intro(view.merchant.name)}</p>
${transferSummary(view)}
<form method="get" action="${operationPath(view.operation)}">
<fieldset class="banks"><legend>${m.operation.chooseBank}</legend>
${errorLine(errors.bank_id)}
${banks.map((bank) => html`<label><input type="radio" name="bank" value="${bank.bankId}"${banks.length === 1 ? html` checked` : ''}><img src="/assets/banks/${bank.bankId}.svg" alt=""> ${bank.name}</label>`)}
</fieldset>
<button id="continue">${m.continue}</button>
</form>`;
}

export function operationLoginPage(view: OperationView, bank: Bank, csrf: string, values: { rut?: string }, errors: FormErrors): Html {
  const { m } = view;
  return html`${bankNotice(bank.message)}
<p>${m.operation.intro(view.merchant.name)}</p>
${transferSummary(view)}
${bankLoginForm(m, `${operationPath(view.operation)}/login?bank=${encodeURIComponent(bank.bankId)}`, csrf, values, errors)}
${atDemoBank(bank.bankId, view.merchant) ? demoBankTestValues(m, 'operation-login') : ''}`;
}

export function operationAuthorizePage(view: OperationView, challenge: readonly string[], csrf: string, errors: FormErrors): Html {
  const { m } = view;
  return html`<p>${m.operation.transferSummary(amountOf(view), view.terms.accountNumber)}</p>
${transferSummary(view)}
<p>${m.payer}: ${view.operation.payerIdentifier}</p>
${challengeForm(m, `${operationPath(view.operation)}/authorize`, csrf, challenge, errors, { id: 'authorize', label: m.authorize })}
${view.operation.bankId && atDemoBank(view.operation.bankId, view.merchant) ? demoBankTestValues(m, 'operation-authorize') : ''}`;
}

/** Where an operation stands as the SDK would report it, with the bank's words when it failed. */
export function resultContent(m: Messages, operation: Operation, result: SdkResult, notice?: string): { title: string; body: Html } {
  const bankSaid = operation.state === 'error' && operation.failure ? html`<p class="bank-message"><q>${operation.failure}</q></p>` : '';
  return {
    title: m.operation.resultTitles[result],
    body: html`${notice ? html`<p class="notice">${notice}</p>` : ''}<p class="result" data-result="${result}">${m.operation.results[result]}</p>${bankSaid}`,
  };
}
