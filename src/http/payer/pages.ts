// The payer pages' content. Every value that comes from a merchant (subject, body, names, URLs)
// goes through the escaping `html` template.
import type { CollectionAccount } from '../../domain/collection-account.js';
import type { Merchant } from '../../domain/merchant.js';
import type { Payment } from '../../domain/payment.js';
import type { PaymentAttempt } from '../../domain/payment-attempt.js';
import type { BankOption } from '../../domain/payer-options.js';
import type { PaymentMethodInfo } from '../../domain/payment-methods.js';
import { type ReceiptPayment, receiptPath } from '../../domain/receipt.js';
import { formatInstant, formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { receiptFacts } from '../../render/receipt.js';
import type { Messages } from '../../render/words.js';
import { atDemoBank, demoBankTestValues } from '../demobank-test-values.js';

export interface PaymentView {
  m: Messages;
  payment: Payment;
  merchant: Merchant;
  csrf: string;
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;
export const errorLine = (text: string | undefined) => (text ? html`<p class="error" role="alert">${text}</p>` : '');
const amountOf = (m: Messages, payment: Payment) => formatMoney(payment.amount, payment.currency, m);

export function summary(m: Messages, payment: Payment, merchant: Merchant): Html {
  return html`<dl class="summary">
<dt>${m.merchant}</dt><dd class="merchant">${merchant.name}</dd>
<dt>${m.subject}</dt><dd class="subject">${payment.subject}</dd>
${payment.body ? html`<dt>${m.details}</dt><dd class="body">${payment.body}</dd>` : ''}
<dt>${m.amount}</dt><dd class="amount">${amountOf(m, payment)}</dd>
<dt>${m.expires}</dt><dd class="expires">${formatInstant(payment.expiresAt, m)}</dd>
</dl>`;
}

/** The way back to the merchant's site, when the merchant gave one. */
export const merchantLink = (m: Messages, url: string | null, className: 'cancel' | 'button') =>
  url ? html`<p><a class="${className}" href="${url}">${m.backToMerchant}</a></p>` : '';
/** Every page where the payer can still give up offers the way back to the merchant's cancel_url. */
const cancelLink = (m: Messages, cancelUrl: string | null) => merchantLink(m, cancelUrl, 'cancel');
/** When simplified transfer cannot pay, the normal transfer still can. */
const manualFallback = (m: Messages, payment: Payment) =>
  html`<p><a class="button" href="/payment/manual/${payment.paymentId}">${m.payByManual}</a></p>${cancelLink(m, payment.cancelUrl)}`;
/** After an attempt that did not pay, while the payment is still payable: another attempt, or giving up. */
const retryLinks = (m: Messages, attempt: PaymentAttempt, cancelUrl: string | null) =>
  html`<p><a class="button" id="retry" href="/payment/simplified/${attempt.paymentId}">${m.tryAgain}</a></p>${cancelLink(m, cancelUrl)}`;

export function infoPage(view: PaymentView, methods: readonly PaymentMethodInfo[]): Html {
  const { m, payment, merchant } = view;
  const path = (id: string) => (id === 'SIMPLIFIED_TRANSFER' ? 'simplified' : 'manual');
  return html`${summary(m, payment, merchant)}
<h2>${m.chooseMethod}</h2>
<ul class="methods">${methods.map(
    (method) =>
      html`<li><a class="button method" id="method-${path(method.id)}" href="/payment/${path(method.id)}/${payment.paymentId}">${
        method.id === 'SIMPLIFIED_TRANSFER' ? m.simplified : m.manual
      }</a><br><small>${method.id === 'SIMPLIFIED_TRANSFER' ? m.simplifiedHelp : m.manualHelp}</small></li>`,
  )}</ul>
<div class="actions">
<form method="post" action="/payment/info/${payment.paymentId}/decline">${csrfField(view.csrf)}<button class="secondary" id="decline">${m.decline}</button></form>
<form method="post" action="/payment/info/${payment.paymentId}/abuse">${csrfField(view.csrf)}<button class="secondary" id="abuse">${m.abuse}</button></form>
</div>
${cancelLink(m, payment.cancelUrl)}`;
}

export interface FormErrors {
  [field: string]: string | undefined;
}

export function simplifiedPage(view: PaymentView, banks: readonly BankOption[], values: { bankId?: string; payerEmail?: string }, errors: FormErrors): Html {
  const { m, payment, merchant } = view;
  const usable = banks.filter((b) => !b.refusal);
  const chosen = values.bankId ?? (usable.length === 1 ? usable[0]!.bank.bankId : undefined);
  const refusal = (option: BankOption) =>
    option.refusal === 'min-amount'
      ? m.minimumAmount(formatMoney(option.bank.minAmount, option.bank.currency, m))
      : option.refusal === 'currency'
        ? m.otherCurrency
        : '';
  if (usable.length === 0) return html`${summary(m, payment, merchant)}<p class="notice">${m.noBanks}</p>${manualFallback(m, payment)}`;
  // No browser check holds the form back: the page itself says what is missing, in its language, with script or without.
  return html`${summary(m, payment, merchant)}
<form method="post" action="/payment/simplified/${payment.paymentId}" novalidate>
${csrfField(view.csrf)}
<fieldset class="banks"><legend>${m.chooseBank}</legend>
${errorLine(errors.bank_id)}
${banks.map(
  (option) =>
    html`<label><input type="radio" name="bank_id" value="${option.bank.bankId}"${option.bank.bankId === chosen ? html` checked` : ''}${
      option.refusal ? html` disabled` : ''
    }><img src="/assets/banks/${option.bank.bankId}.svg" alt=""> ${option.bank.name}${option.refusal ? html` <small>(${refusal(option)})</small>` : ''}</label>`,
)}
</fieldset>
<label for="payer_email">${m.email}</label>
<p class="hint" id="payer_email-hint">${m.emailHint}</p>
<input type="email" id="payer_email" name="payer_email" required maxlength="255" aria-describedby="payer_email-hint" value="${values.payerEmail ?? payment.payerEmail ?? ''}"${
    errors.payer_email ? html` aria-invalid="true" autofocus` : ''
  }>
${errorLine(errors.payer_email)}
<button id="continue">${m.continue}</button>
</form>
${cancelLink(m, payment.cancelUrl)}`;
}

/** Everything a payer types into their bank to make the transfer; the credit to this account with this reference and amount pays the payment. */
export function manualPage(view: Omit<PaymentView, 'csrf'>, account: CollectionAccount, bankName: string): Html {
  const { m, payment, merchant } = view;
  return html`${summary(m, payment, merchant)}
<p>${m.manualIntro}</p>
<h2>${m.account}</h2>
<dl class="transfer">
<dt>${m.bank}</dt><dd class="bank">${bankName}</dd>
<dt>${m.accountType}</dt><dd class="account-type">${m.accountTypes[account.accountType]}</dd>
<dt>${m.accountNumber}</dt><dd class="account">${account.number}</dd>
<dt>${m.holder}</dt><dd class="holder">${account.holderName}</dd>
<dt>${m.holderRut}</dt><dd class="holder-rut">${account.holderRut}</dd>
<dt>${m.exactAmount}</dt><dd class="transfer-amount">${amountOf(m, payment)}</dd>
<dt>${m.reference}</dt><dd class="reference"><strong>${payment.paymentId}</strong></dd>
</dl>
${cancelLink(m, payment.cancelUrl)}`;
}

export function noConnectorPage(view: Omit<PaymentView, 'csrf'>, bankName: string): Html {
  return html`<p class="notice">${view.m.noConnector(bankName)}</p>${manualFallback(view.m, view.payment)}`;
}

export interface AttemptView extends PaymentView {
  attempt: PaymentAttempt;
  bankName: string;
  bankMessage: string;
}

/** The bank's own message to its users (DemoBank: that it is a test bank). */
export const bankNotice = (bankMessage: string) => (bankMessage ? html`<p class="notice">${bankMessage}</p>` : '');

/** The payer's sign-in at their bank, for a payment or a mandate. */
export function bankLoginForm(m: Messages, action: string, csrf: string, values: { rut?: string }, errors: FormErrors): Html {
  return html`<form method="post" action="${action}">
${csrfField(csrf)}
${errorLine(errors.form)}
<label for="rut">${m.rut}</label>
<input type="text" id="rut" name="rut" required autocomplete="username" value="${values.rut ?? ''}">
${errorLine(errors.rut)}
<label for="password">${m.password}</label>
<input type="password" id="password" name="password" required autocomplete="current-password">
${errorLine(errors.password)}
<button id="login">${m.login}</button>
</form>`;
}

/** The bank's challenge (the coordinates of the payer's card), answered to authorise a transfer or sign a mandate. */
export function challengeForm(
  m: Messages,
  action: string,
  csrf: string,
  challenge: readonly string[],
  errors: FormErrors,
  submit: { id: string; label: string },
): Html {
  return html`<form method="post" action="${action}">
${csrfField(csrf)}
${errorLine(errors.form)}
${errorLine(errors.coordinates)}
${challenge.map(
  (label, i) =>
    html`<div class="coordinate-field"><label for="c${i + 1}">${m.coordinate(label)}</label><input class="coordinate" type="text" id="c${i + 1}" name="c${i + 1}" required maxlength="2" inputmode="numeric" autocomplete="off"></div>`,
)}
<div><button id="${submit.id}">${submit.label}</button></div>
</form>`;
}

export function bankLoginPage(view: AttemptView, values: { rut?: string }, errors: FormErrors): Html {
  const { m, attempt } = view;
  return html`${bankNotice(view.bankMessage)}
<p>${m.transferSummary(amountOf(m, view.payment), view.merchant.name)}</p>
${bankLoginForm(m, `/payment/bank/${attempt.attemptId}/login`, view.csrf, values, errors)}
${atDemoBank(attempt.bankId, view.merchant) ? demoBankTestValues(m, 'payment-login') : ''}
${cancelLink(m, view.payment.cancelUrl)}`;
}

export function authorizePage(view: AttemptView, challenge: readonly string[], errors: FormErrors): Html {
  const { m, attempt } = view;
  return html`<p>${m.transferSummary(amountOf(m, view.payment), view.merchant.name)}</p>
<p>${m.payer}: ${attempt.personalIdentifier}</p>
${challengeForm(m, `/payment/bank/${attempt.attemptId}/authorize`, view.csrf, challenge, errors, { id: 'authorize', label: m.authorize })}
${atDemoBank(attempt.bankId, view.merchant) ? demoBankTestValues(m, 'payment-authorize') : ''}
${cancelLink(m, view.payment.cancelUrl)}`;
}

/** The page of a payment the payer can no longer act on (or, collected by direct debit, never could), or wants the result of. */
export function statusContent(
  m: Messages,
  { payment, merchant, directDebit }: Omit<PaymentView, 'm' | 'csrf'> & { directDebit: boolean },
  now: Date,
  notice?: string,
): { title: string; body: Html } {
  const frame = (title: string, text: string, extra: Html | string = '') => ({
    title,
    body: html`${directDebit ? noticeContent(m.directDebit) : ''}${notice ? noticeContent(notice) : ''}<p class="status" data-status="${payment.status}" data-status-detail="${payment.statusDetail}">${text}</p>${extra}${summary(m, payment, merchant)}`,
  });
  const back = (url: string | null) => merchantLink(m, url, 'button');
  if (payment.status === 'done') {
    if (payment.statusDetail === 'marked-paid-by-receiver') return frame(m.paidTitle, m.markedPaid, back(payment.returnUrl));
    const receipt = payment.receiptUrl ? html`<p><a id="receipt" href="/payment/receipt/${payment.paymentId}">${m.receiptLink}</a></p>` : '';
    return frame(m.paidTitle, payment.statusDetail === 'reversed' ? m.reversed : m.paid, html`${receipt}${back(payment.returnUrl)}`);
  }
  if (payment.status === 'verifying') return frame(m.verifyingTitle, m.verifying, back(payment.returnUrl));
  if (payment.statusDetail === 'rejected-by-payer') return frame(m.declinedTitle, m.declined, back(payment.cancelUrl));
  if (payment.statusDetail === 'marked-as-abuse') return frame(m.abuseTitle, m.abused, back(payment.cancelUrl));
  if (now >= payment.expiresAt) return frame(m.expiredTitle, m.expired, back(payment.cancelUrl));
  return frame(m.pendingTitle, m.pending, directDebit ? '' : html`<p><a class="button" href="/payment/info/${payment.paymentId}">${m.payNow}</a></p>`);
}

/** The bank's own words come in the bank's language: they are shown as its message, beside the page's own line. */
export function failedAttemptContent(
  m: Messages,
  attempt: PaymentAttempt,
  bankName: string,
  payable: boolean,
  cancelUrl: string | null,
  notice?: string,
): Html {
  const bankMessage = attempt.failure ? html`<p class="bank-message">${m.bankSaid(bankName)} <q>${attempt.failure}</q></p>` : '';
  return html`${notice ? noticeContent(notice) : ''}<p class="error" role="alert">${m.transferFailed}</p>${bankMessage}${payable ? retryLinks(m, attempt, cancelUrl) : ''}`;
}

export function noticeContent(text: string): Html {
  return html`<p class="notice">${text}</p>`;
}

/** Shown only while the payment is payable: a payment that is not says so on its status page instead. */
export function expiredAttemptContent(m: Messages, attempt: PaymentAttempt, cancelUrl: string | null): Html {
  return html`<p class="notice">${m.attemptExpired}</p>${retryLinks(m, attempt, cancelUrl)}`;
}

export function receiptContent(m: Messages, payment: ReceiptPayment, merchant: Merchant): Html {
  return html`<dl class="receipt">
${receiptFacts(m, payment, merchant).map(({ name, label, value }) => html`<dt>${label}</dt><dd class="${name}">${value}</dd>\n`)}</dl>
${payment.outOfDateConciliation ? html`<p class="notice">${m.lateConciliation}</p>` : ''}
<p><a id="receipt-pdf" href="${receiptPath(payment.paymentId, payment.conciliationAt)}">${m.receiptPdf}</a></p>`;
}
