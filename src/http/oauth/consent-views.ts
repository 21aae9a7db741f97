// The consent review's pages, in Spanish like the flow's: choose the institution, sign in there
// (the flow's own form), then the consents given there, each with its withdrawal form. Every
// value is escaped by `html`.
import type { LiveConsent } from '../../app/consent-review.js';
import { FLOW_SCOPES } from '../../domain/oauth-request.js';
import { formatInstant } from '../../render/format.js';
import { html } from '../../render/html.js';
import { messages } from '../../render/words.js';
import { csrfField, layout, signInForm } from './views.js';

const es = messages('es');
const when = (ms: number) => formatInstant(new Date(ms), es);

export function institutionChoicePage(institutions: readonly { bankId: string; name: string }[], csrf: string): string {
  if (institutions.length === 0)
    return layout(
      'Tus autorizaciones',
      html`<p class="notice" id="message">Este servicio no tiene ningún banco configurado en el que puedas ingresar para revisar tus autorizaciones.</p>`,
    );
  return layout(
    'Tus autorizaciones',
    html`<p>Revisa las aplicaciones a las que autorizaste a acceder a tu información en un banco, y retira las que ya no quieras. Primero ingresa a tu banco.</p>
<form method="post" action="/oauth2/consents">
${csrfField(csrf)}
<label for="institution">Banco</label>
<select id="institution" name="institution_id" required>
${institutions.map((bank) => html`<option value="${bank.bankId}">${bank.name}</option>`)}
</select>
<button id="choose">Continuar</button>
</form>`,
  );
}

export function reviewLoginPage(reviewId: string, institutionId: string, csrf: string, error?: string): string {
  const intro = html`Ingresa con tus credenciales del banco para ver las aplicaciones que autorizaste.`;
  return layout('Ingresa a tu banco', signInForm(institutionId, intro, `/oauth2/consents/${reviewId}/login`, csrf, error));
}

function consentEntry(reviewId: string, consent: LiveConsent, csrf: string) {
  return html`<section class="consent">
<h2>${consent.clientName}</h2>
<dl><dt>Permisos</dt><dd>${FLOW_SCOPES.join(', ')}</dd><dt>Autorizada</dt><dd>${when(consent.givenAt)}</dd><dt>Vence</dt><dd>${when(consent.expiresAt)}</dd></dl>
<form method="post" action="/oauth2/consents/${reviewId}/withdraw">
${csrfField(csrf)}
<input type="hidden" name="consent_id" value="${consent.consentId}">
<button class="secondary" aria-label="Retirar autorización de ${consent.clientName}">Retirar autorización</button>
</form>
</section>`;
}

export function consentListPage(reviewId: string, userId: string, consents: readonly LiveConsent[], csrf: string): string {
  return layout(
    'Tus autorizaciones',
    html`<dl><dt>Usuario</dt><dd id="user">${userId}</dd></dl>
${
  consents.length === 0
    ? html`<p class="notice" id="message">No hay aplicaciones autorizadas con acceso vigente a tu información en este banco.</p>`
    : html`<p>Estas aplicaciones pueden acceder, en tu nombre, a tu información en este banco. Al retirar una autorización, la aplicación pierde ese acceso de inmediato.</p>
${consents.map((consent) => consentEntry(reviewId, consent, csrf))}`
}`,
  );
}
