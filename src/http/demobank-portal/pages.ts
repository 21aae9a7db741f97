// The portal's content. Merchant values (a mandate's creditor and reference) go through the
// escaping `html` template.
import type { DemoMandate } from '../../bank/demo-bank-mandates.js';
import { formatInstant, formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import type { Messages } from '../../render/words.js';
import { demoBankTestValues } from '../demobank-test-values.js';
import { bankLoginForm, csrfField, type FormErrors } from '../payer/pages.js';
import { PORTAL_PATH } from './session.js';

export function signInPage(m: Messages, csrf: string, values: { rut?: string }, errors: FormErrors): Html {
  return html`<p>${m.demoBankPortal.intro}</p>
${bankLoginForm(m, `${PORTAL_PATH}/sign-in`, csrf, values, errors)}
${demoBankTestValues(m, 'portal-login')}`;
}

/** Only a mandate in force or waiting for the bank can be revoked: the others are over. */
const revocable = (mandate: DemoMandate) => mandate.state === 'active' || mandate.state === 'pending';

function mandateItem(m: Messages, csrf: string, mandate: DemoMandate): Html {
  const p = m.demoBankPortal;
  return html`<li class="mandate" data-mandate-id="${mandate.mandateId}" data-state="${mandate.state}">
<h3 class="creditor">${mandate.creditor}</h3>
<dl>
<dt>${m.reference}</dt><dd class="reference">${mandate.reference}</dd>
<dt>${p.maxAmount}</dt><dd class="max-amount">${formatMoney(mandate.maxAmount, mandate.currency, m)}</dd>
<dt>${p.state}</dt><dd class="state">${p.states[mandate.state]}</dd>
<dt>${p.signedAt}</dt><dd class="signed-at">${formatInstant(mandate.signedAt, m)}</dd>
${mandate.state === 'pending' && mandate.activatesAt ? html`<dt>${p.activatesAt}</dt><dd class="activates-at">${formatInstant(mandate.activatesAt, m)}</dd>` : ''}
</dl>
${revocable(mandate) ? html`<form method="post" action="${PORTAL_PATH}/mandates/${mandate.mandateId}/revoke">${csrfField(csrf)}<button class="secondary revoke">${p.revoke}</button></form>` : ''}
</li>`;
}

export function mandatesPage(m: Messages, csrf: string, rut: string, mandates: readonly DemoMandate[], notice?: string): Html {
  const p = m.demoBankPortal;
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<p>${p.signedInAs(rut)}</p>
<form method="post" action="${PORTAL_PATH}/sign-out">${csrfField(csrf)}<button class="secondary" id="sign-out">${p.signOut}</button></form>
<h2>${p.mandates}</h2>
${mandates.length === 0 ? html`<p class="none">${p.none}</p>` : html`<ul class="mandates">${mandates.map((mandate) => mandateItem(m, csrf, mandate))}</ul>`}`;
}
