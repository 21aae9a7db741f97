// The mandate signing pages' content. Every value that comes from a merchant (names, reference,
// description, image, URLs) goes through the escaping `html` template.
import type { Bank } from '../../domain/banks.js';
import type { MandateSigning } from '../../domain/mandate-signing.js';
import type { Merchant } from '../../domain/merchant.js';
import { mandatePath, type Subscription } from '../../domain/subscription.js';
import { formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import type { Messages } from '../../render/words.js';
import { atDemoBank, demoBankTestValues } from '../demobank-test-values.js';
import { bankLoginForm, bankNotice, challengeForm, csrfField, errorLine, type FormErrors, merchantLink, noticeContent } from '../payer/pages.js';

export interface MandateView {
  m: Messages;
  subscription: Subscription;
  merchant: Merchant;
}

export interface SigningPageView extends MandateView {
  signing: MandateSigning;
  bankName: string;
  bankMessage: string;
  csrf: string;
}

export const signingPath = (signing: Pick<MandateSigning, 'signingId'>) => `/pac-manager/signing/${signing.signingId}`;

const maxAmountOf = (m: Messages, subscription: Subscription) => formatMoney(subscription.maxAmount, subscription.currency, m);
/** Every step offers the way back to the merchant's cancel_url. */
const cancelLink = (m: Messages, subscription: Subscription) => merchantLink(m, subscription.cancelUrl, 'cancel');
const startAgainLink = (m: Messages, subscription: Subscription, label: string, id: string) =>
  html`<p><a class="button" id="${id}" href="${mandatePath(subscription.subscriptionId)}">${label}</a></p>${cancelLink(m, subscription)}`;

function mandateSummary({ m, subscription, merchant }: MandateView): Html {
  return html`${subscription.imageUrl ? html`<p><img class="subscription-image" src="${subscription.imageUrl}" alt=""></p>` : ''}
<dl class="summary">
<dt>${m.merchant}</dt><dd class="merchant">${merchant.name}</dd>
<dt>${m.mandate.subscription}</dt><dd class="subscription">${subscription.name}</dd>
${subscription.serviceReference ? html`<dt>${m.mandate.serviceReference}</dt><dd class="service-reference">${subscription.serviceReference}</dd>` : ''}
${subscription.description ? html`<dt>${m.mandate.description}</dt><dd class="description">${subscription.description}</dd>` : ''}
<dt>${m.mandate.maxAmount}</dt><dd class="amount">${maxAmountOf(m, subscription)}</dd>
</dl>`;
}

/** The subscription and the banks it may be signed at (none for a production account today). */
export function choosePage(view: MandateView & { csrf: string }, banks: readonly Bank[], values: { bankId?: string }, errors: FormErrors): Html {
  const { m, subscription } = view;
  const intro = html`<p>${m.mandate.intro(view.merchant.name, maxAmountOf(m, subscription))}</p>
${mandateSummary(view)}`;
  if (banks.length === 0) return html`${intro}<p class="notice" id="no-banks">${m.mandate.noBanks}</p>${cancelLink(m, subscription)}`;
  const chosen = values.bankId ?? (banks.length === 1 ? banks[0]!.bankId : undefined);
  return html`${intro}
<form method="post" action="${mandatePath(subscription.subscriptionId)}">
${csrfField(view.csrf)}
<fieldset class="banks"><legend>${m.mandate.chooseBank}</legend>
${errorLine(errors.bank_id)}
${banks.map(
  (bank) =>
    html`<label><input type="radio" name="bank_id" value="${bank.bankId}"${bank.bankId === chosen ? html` checked` : ''}><img src="/assets/banks/${bank.bankId}.svg" alt=""> ${bank.name}</label>`,
)}
</fieldset>
<button id="continue">${m.continue}</button>
</form>
${cancelLink(m, subscription)}`;
}

export function mandateLoginPage(view: SigningPageView, values: { rut?: string }, errors: FormErrors): Html {
  const { m, subscription } = view;
  return html`${bankNotice(view.bankMessage)}
<p>${m.mandate.signSummary(view.merchant.name, maxAmountOf(m, subscription))}</p>
${bankLoginForm(m, `${signingPath(view.signing)}/login`, view.csrf, values, errors)}
${atDemoBank(view.signing.bankId, view.merchant) ? demoBankTestValues(m, 'mandate-login') : ''}
${cancelLink(m, subscription)}`;
}

export function signPage(view: SigningPageView, challenge: readonly string[], errors: FormErrors): Html {
  const { m, subscription } = view;
  return html`<p>${m.mandate.signSummary(view.merchant.name, maxAmountOf(m, subscription))}</p>
${mandateSummary(view)}
<p>${m.payer}: ${view.signing.personalIdentifier}</p>
${challengeForm(m, `${signingPath(view.signing)}/sign`, view.csrf, challenge, errors, { id: 'sign', label: m.mandate.sign })}
${atDemoBank(view.signing.bankId, view.merchant) ? demoBankTestValues(m, 'mandate-sign') : ''}
${cancelLink(m, subscription)}`;
}

/** Where the subscription's mandate stands, when the payer has nothing (more) to sign in this session. */
export function mandateStatusContent(view: MandateView, notice?: string): { title: string; body: Html } {
  const { m, subscription } = view;
  const { state } = subscription;
  const next =
    state === 'created'
      ? startAgainLink(m, subscription, m.mandate.signNow, 'sign-now')
      : merchantLink(m, state === 'signed' || state === 'enabled' ? subscription.returnUrl : subscription.cancelUrl, 'button');
  return {
    title: m.mandate.stateTitles[state],
    body: html`${notice ? noticeContent(notice) : ''}<p class="status" data-state="${state}">${m.mandate.states[state]}</p>${next}${mandateSummary(view)}`,
  };
}

/** A session past its 30 minutes, while the mandate can still be signed: a new session is one click away. */
export function expiredSigningContent({ m, subscription }: MandateView): Html {
  return html`<p class="notice">${m.mandate.expired}</p>${startAgainLink(m, subscription, m.mandate.startAgain, 'start-again')}`;
}
