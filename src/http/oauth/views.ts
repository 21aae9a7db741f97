// The authorization flow's pages, in Spanish like the institution pages they stand for: sign-in
// at the institution, consent, the auto-submitted form of response_mode=form_post, and the page
// shown when the request cannot go back to the client. Every value is escaped by `html`.
import type { FlowPage } from '../../app/authorization-steps.js';
import { DEMO_BANK_ID, findBank } from '../../domain/banks.js';
import { FLOW_SCOPES } from '../../domain/oauth-request.js';
import { type Html, html } from '../../render/html.js';
import { pageDocument } from '../html.js';

export function layout(title: string, content: Html, nonce?: string): string {
  return pageDocument({ lang: 'es', title, content, script: nonce ? { nonce, source: 'document.forms[0].submit();' } : undefined });
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

function institutionHeader(institutionId: string): Html {
  const bank = findBank(institutionId, true);
  return html`<p><img src="/assets/banks/${institutionId}.svg" alt="" height="32"> ${bank?.name ?? institutionId}</p>
${institutionId === DEMO_BANK_ID ? html`<p class="notice">${bank?.message ?? ''} Ingresa cualquier RUT válido y la clave 1234.</p>` : ''}`;
}

/** The sign-in at the institution, as the flow and the consent review ask for it. */
export function signInForm(institutionId: string, intro: Html, action: string, csrf: string, error?: string): Html {
  return html`${institutionHeader(institutionId)}
<p>${intro}</p>
<form method="post" action="${action}">
${csrfField(csrf)}
${error ? html`<p class="error" id="form-error">${error}</p>` : ''}
<label for="rut">RUT</label>
<input type="text" id="rut" name="rut" required autocomplete="username">
<label for="password">Clave</label>
<input type="password" id="password" name="password" required autocomplete="current-password">
<button id="login">Ingresar</button>
</form>`;
}

export function loginPage(page: FlowPage, csrf: string, error?: string): string {
  const intro = html`<strong>${page.clientName}</strong> solicita acceso a tu información en este banco. Ingresa con tus credenciales del banco para continuar.`;
  return layout('Ingresa a tu banco', signInForm(page.institutionId, intro, `/oauth2/flows/${page.authorizationId}/login`, csrf, error));
}

export function consentPage(page: FlowPage, csrf: string): string {
  return layout(
    'Autoriza el acceso',
    html`${institutionHeader(page.institutionId)}
<p><strong>${page.clientName}</strong> quiere acceder, en tu nombre, a tu información en este banco.</p>
<dl><dt>Usuario</dt><dd id="user">${page.userId ?? ''}</dd><dt>Permisos</dt><dd>${FLOW_SCOPES.join(', ')}</dd></dl>
<form method="post" action="/oauth2/flows/${page.authorizationId}/consent" class="actions">
${csrfField(csrf)}
<button id="allow" name="decision" value="allow">Autorizar</button>
<button id="deny" name="decision" value="deny" class="secondary">Rechazar</button>
</form>`,
  );
}

/** response_mode=form_post: the answer is posted to the client by the browser, at once when scripts run. */
export function formPostPage(action: string, params: Record<string, string>, nonce: string): string {
  return layout(
    'Volviendo a la aplicación',
    html`<form method="post" action="${action}">
${Object.entries(params).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button id="continue">Continuar</button>
</form>`,
    nonce,
  );
}

export function messagePage(title: string, text: string): string {
  return layout(title, html`<p class="notice" id="message">${text}</p>`);
}
