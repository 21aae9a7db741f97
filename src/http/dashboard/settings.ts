// The account's settings: credentials shown only when asked for with a POST (never in a GET's page
// or address), the API key and the secret rotated only with a ticked confirmation (the replaced one
// working on for the period chosen, so a merchant rolls without downtime), every access token of
// the account revoked (also only with a ticked confirmation), and the account's URLs,
// OAuth redirect URIs and notification hosts changed through update-merchant, which checks every
// field before writing anything.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountRedirectUris, revealCredentials } from '../../app/account-settings.js';
import { changeDashboardPassword } from '../../app/change-dashboard-password.js';
import { getEvent } from '../../app/event-queries.js';
import { sendTestEvent } from '../../app/send-at-once.js';
import type { Transport } from '../../delivery/transport.js';
import { revokeAccountTokens } from '../../app/revoke-account-tokens.js';
import { updateMerchant } from '../../app/update-merchant.js';
import { DomainError, type FieldError, fieldError } from '../../domain/errors.js';
import { type Merchant, NOTIFY_API_VERSIONS } from '../../domain/merchant.js';
import { notifyHostList } from '../../domain/notify-destinations.js';
import { type Html, html } from '../../render/html.js';
import { csrfField, errorLine } from '../payer/pages.js';
import { outcomeNotice } from './events.js';
import { type DashboardFrame, frameOf, may, sendPage, sessionOf, SESSIONS_PATH } from './layout.js';
import { eventPath } from './payment-page.js';
import { DASHBOARD_PATH, setSessionCookie } from './session-cookie.js';
import { originOf } from './sign-in.js';

export const SETTINGS_PATH = `${DASHBOARD_PATH}/settings`;
export const PASSWORD_PATH = `${SETTINGS_PATH}/password`;
const TEST_EVENT_PATH = `${SETTINGS_PATH}/test-event`;
const NOTIFY_HOSTS_PATH = `${SETTINGS_PATH}/notify-hosts`;
const REVOKE_TOKENS_PATH = `${SETTINGS_PATH}/revoke-tokens`;

type Form = Record<string, string | undefined>;

interface SettingsView {
  /** Shown in clear after a reveal or a rotation. */
  credentials?: { apiKey: string | null; secret: string };
  rotated?: boolean;
  values?: Form;
  errors?: FieldError[];
  /** The notification hosts as sent, refused. */
  refusedHosts?: string;
  notice?: Html;
}

function credentialsSection(frame: DashboardFrame, merchant: Merchant, view: SettingsView): Html {
  const s = frame.w.settings;
  const shown = view.credentials;
  const hidden = html`<span class="hidden">${s.hidden}</span>`;
  return html`<h2>${s.credentials}</h2>
${view.rotated ? html`<p class="notice" role="status">${s.rotated}</p>` : ''}
<dl><dt>${s.receiverId}</dt><dd class="secret" data-copy="${merchant.receiverId}" id="receiver-id">${merchant.receiverId}</dd>
<dt>${s.apiKey}</dt>${shown?.apiKey ? html`<dd class="secret" data-copy="${shown.apiKey}" id="api-key">${shown.apiKey}</dd>` : html`<dd class="secret" id="api-key">${shown ? s.keyUnknown : hidden}</dd>`}
<dt>${s.secret}</dt>${shown ? html`<dd class="secret" data-copy="${shown.secret}" id="secret">${shown.secret}</dd>` : html`<dd class="secret" id="secret">${hidden}</dd>`}</dl>
${shown || !may(frame, 'credentials.reveal') ? '' : html`<form method="post" action="${SETTINGS_PATH}/reveal">${csrfField(frame.csrf)}<button class="secondary" id="reveal">${s.reveal}</button></form>`}
${may(frame, 'credentials.rotate') ? [rotateForm(frame, 'rotate-key', 'rotate', s.rotate), rotateForm(frame, 'rotate-secret', 'rotate-secret', s.rotateSecret)] : ''}
${may(frame, 'tokens.revoke') ? revokeTokensForm(frame) : ''}`;
}

/** Every access token of the account revoked, with a ticked confirmation as a rotation has: each integration must ask for a new one. */
function revokeTokensForm(frame: DashboardFrame): Html {
  const s = frame.w.settings;
  return html`<form method="post" action="${REVOKE_TOKENS_PATH}">${csrfField(frame.csrf)}
<p class="hint" id="revoke-tokens-hint">${s.revokeTokensHint}</p>
<label><input type="checkbox" name="confirm" value="yes" id="revoke-tokens-confirm"> ${s.revokeTokensConfirm}</label>
<button class="secondary" id="revoke-tokens">${s.revokeTokens}</button></form>`;
}

/** A rotation's form: ticked confirmation, and how long the replaced credential keeps working. */
function rotateForm(frame: DashboardFrame, action: string, id: string, label: string): Html {
  const s = frame.w.settings;
  return html`<form method="post" action="${SETTINGS_PATH}/${action}">${csrfField(frame.csrf)}
<label for="${id}-grace">${s.grace}</label><select id="${id}-grace" name="grace">${Object.entries(s.graces).map(([ms, text]) => html`<option value="${ms}">${text}</option>`)}</select>
<label><input type="checkbox" name="confirm" value="yes" id="${id}-confirm"> ${s.rotateConfirm}</label>
<button class="secondary" id="${id}">${label}</button></form>`;
}

/** Every role changes its own password, and sees and ends its sessions. */
function passwordForm(frame: DashboardFrame): Html {
  const s = frame.w.settings;
  return html`<h2>${s.password}</h2>
<p><a href="${SESSIONS_PATH}" id="sessions-link">${frame.w.sessionsLink}</a></p>
<form method="post" action="${PASSWORD_PATH}" class="settings">${csrfField(frame.csrf)}
<label for="current_password">${s.currentPassword}</label><input type="password" id="current_password" name="current" required autocomplete="current-password">
<label for="new_password">${s.newPassword}</label><input type="password" id="new_password" name="next" required minlength="8" autocomplete="new-password">
<button class="secondary" id="change-password">${s.changePassword}</button></form>`;
}

function accountForm(frame: DashboardFrame, merchant: Merchant, redirectUris: string[], view: SettingsView): Html {
  const s = frame.w.settings;
  const values = view.values ?? {
    notify_url: merchant.notifyUrl ?? '',
    notify_api_version: merchant.notifyApiVersion,
    rendition_url: merchant.renditionUrl ?? '',
    redirect_uris: redirectUris.join('\n'),
  };
  // Each bad field says so beside itself, in the page's words (the use case's messages are the API's, in English).
  const bad = new Set(view.errors?.map((e) => e.field));
  const errorOf = (field: string) => (bad.has(field) ? html`<p class="error" id="${field}-error">${s.fieldErrors[field]}</p>` : '');
  const invalid = (field: string) => (bad.has(field) ? html` aria-invalid="true" aria-describedby="${field}-error"` : '');
  // The test event goes to the saved URL: its button (in a form of its own, below) sits beside the field.
  const testable = merchant.notifyUrl !== null && may(frame, 'notify.test');
  const testButton = testable
    ? html`<div class="test-event"><button class="secondary" id="test-event" form="test-event-form">${s.testEvent}</button> <span class="hint">${s.testEventHint}</span></div>`
    : '';
  const fields = html`<label for="notify_url">${s.notifyUrl}</label><input type="text" id="notify_url" name="notify_url" value="${values.notify_url ?? ''}"${invalid('notify_url')}>${errorOf('notify_url')}${testButton}
<label for="notify_api_version">${s.notifyApiVersion}</label><select id="notify_api_version" name="notify_api_version"${invalid('notify_api_version')}>${NOTIFY_API_VERSIONS.map(
    (v) => html`<option value="${v}"${values.notify_api_version === v ? html` selected` : ''}>${v}</option>`,
  )}</select>${errorOf('notify_api_version')}
<label for="rendition_url">${s.renditionUrl}</label><input type="text" id="rendition_url" name="rendition_url" value="${values.rendition_url ?? ''}"${invalid('rendition_url')}>${errorOf('rendition_url')}
<label for="redirect_uris">${s.redirectUris}</label><textarea id="redirect_uris" name="redirect_uris" rows="4"${invalid('redirect_uri')}>${values.redirect_uris ?? ''}</textarea>${errorOf('redirect_uri')}`;
  // A role that may not change them reads them in a form that cannot be sent.
  const testForm = testable ? html`<form method="post" action="${TEST_EVENT_PATH}" id="test-event-form">${csrfField(frame.csrf)}</form>` : '';
  if (!may(frame, 'settings.update'))
    return html`<h2>${s.account}</h2>
<fieldset class="settings" disabled>${fields}</fieldset>${testForm}`;
  return html`<h2>${s.account}</h2>
<form method="post" action="${SETTINGS_PATH}" class="settings">${csrfField(frame.csrf)}
${view.errors ? errorLine(s.invalid) : ''}
${fields}
<button id="save">${s.save}</button></form>${testForm}`;
}

/**
 * The hosts the account registered for its notifications (NOTIFY_URL_ACCOUNT_HOSTS), in a form of
 * their own: a refused entry is named beside the list, in the page's words.
 */
function notifyHostsForm(frame: DashboardFrame, merchant: Merchant, enforced: boolean, refused: string | undefined): Html {
  const s = frame.w.settings;
  const error = refused === undefined ? '' : html`<p class="error" role="alert" id="notify_hosts-error">${s.notifyHostsError(notifyHostList(refused).bad)}</p>`;
  const invalid = refused === undefined ? '' : html` aria-invalid="true" aria-describedby="notify_hosts-error"`;
  const fields = html`<label for="notify_hosts">${s.notifyHostsLabel}</label><textarea id="notify_hosts" name="notify_hosts" rows="4"${invalid}>${refused ?? merchant.notifyHosts.join('\n')}</textarea>${error}`;
  const intro = html`<h2>${s.notifyHosts}</h2>
<p class="hint" id="notify-hosts-rule">${enforced ? s.notifyHostsEnforced : s.notifyHostsOptional}</p>`;
  if (!may(frame, 'settings.update')) return html`${intro}<fieldset class="settings" disabled>${fields}</fieldset>`;
  return html`${intro}<form method="post" action="${NOTIFY_HOSTS_PATH}" class="settings">${csrfField(frame.csrf)}
${fields}
<button id="save-notify-hosts">${s.saveHosts}</button></form>`;
}

async function showSettings(request: FastifyRequest, reply: FastifyReply, status: number, view: SettingsView) {
  const frame = frameOf(request, reply, SETTINGS_PATH);
  const { merchant, passwordChangeDue } = sessionOf(request);
  // A generated password is replaced before anything else is shown.
  if (passwordChangeDue) {
    const due = html`<p class="notice" role="status" id="password-due">${frame.w.settings.passwordDue}</p>`;
    return sendPage(reply, frame, status, frame.w.nav.settings, html`${view.notice ?? due}${passwordForm(frame)}`);
  }
  // A rotation changed the account: read it again rather than the session's copy.
  const current = (await request.ctx.merchants.byReceiverId(merchant.receiverId)) ?? merchant;
  const redirectUris = await accountRedirectUris(request.ctx, current);
  return sendPage(
    reply,
    frame,
    status,
    frame.w.nav.settings,
    html`${view.notice ?? ''}${credentialsSection(frame, current, view)}${accountForm(frame, current, redirectUris, view)}${notifyHostsForm(
      frame,
      current,
      request.ctx.config.notifyDestinations.accountHosts,
      view.refusedHosts,
    )}${passwordForm(frame)}`,
  );
}

const optionalUrl = (text: string | undefined) => (text?.trim() ? text.trim() : null);

/** What the test event came to (`tested`: its id, from the redirect after it), with a link to its page. */
async function testedNotice(request: FastifyRequest, words: DashboardFrame['w']['settings'], tested: string): Promise<Html | undefined> {
  const { message, attempts } = await getEvent(request.ctx, tested, sessionOf(request).merchant.receiverId);
  const attempt = attempts.at(-1);
  if (message.kind !== 'receiver.test' || !attempt) return undefined;
  return outcomeNotice(
    words.testEventOutcome,
    message.url,
    attempt,
    html`<a href="${eventPath(message.message_id)}" id="test-event-link">${words.testEventLink}</a>`,
  );
}

/** `transport` sends what this process sends itself (the test event). */
export function settingsRoutes(app: FastifyInstance, transport: Transport): void {
  app.get<{ Querystring: { done?: string; tested?: string } }>(SETTINGS_PATH, async (request, reply) => {
    const words = frameOf(request, reply, '').w.settings;
    const notices: Record<string, string> = { saved: words.saved, password: words.passwordChanged, hosts: words.hostsSaved };
    const done = request.query.done;
    const saved = done !== undefined && Object.hasOwn(notices, done) ? notices[done] : undefined;
    const tested = request.query.tested ? await testedNotice(request, words, request.query.tested) : undefined;
    return showSettings(request, reply, 200, { notice: saved ? html`<p class="notice" role="status" id="notice">${saved}</p>` : tested });
  });

  app.post(TEST_EVENT_PATH, { preHandler: app.csrfProtection, config: { dashboardAction: 'notify.test' } }, async (request, reply) => {
    // The account as saved now, not the session's copy: its notify_url may have changed since sign-in.
    const merchant = (await request.ctx.merchants.byReceiverId(sessionOf(request).merchant.receiverId)) ?? sessionOf(request).merchant;
    try {
      const { message } = await sendTestEvent(request.ctx, transport, merchant);
      return reply.redirect(`${SETTINGS_PATH}?tested=${message.message_id}`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'validation') throw error;
      const { w } = frameOf(request, reply, '');
      const text = merchant.notifyUrl === null ? w.settings.testEventNoUrl : w.events.sendToErrors.refused;
      return showSettings(request, reply, 400, { notice: html`<p class="error" role="alert" id="notice">${text}</p>` });
    }
  });

  app.post(`${SETTINGS_PATH}/reveal`, { preHandler: app.csrfProtection, config: { dashboardAction: 'credentials.reveal' } }, async (request, reply) =>
    showSettings(request, reply, 200, { credentials: await revealCredentials(request.ctx, sessionOf(request).merchant) }),
  );

  for (const [action, rotation] of [
    ['rotate-key', { rotateApiKey: true }],
    ['rotate-secret', { rotateSecret: true }],
  ] as const) {
    app.post<{ Body: Form }>(
      `${SETTINGS_PATH}/${action}`,
      { preHandler: app.csrfProtection, config: { dashboardAction: 'credentials.rotate' } },
      async (request, reply) => {
        const graceMs = Number(request.body?.grace ?? '0');
        if (request.body?.confirm !== 'yes' || !Object.hasOwn(frameOf(request, reply, '').w.settings.graces, String(graceMs))) {
          return showSettings(request, reply, 400, {
            notice: html`<p class="error" role="alert" id="notice">${frameOf(request, reply, '').w.settings.rotateUnconfirmed}</p>`,
          });
        }
        const { merchant, apiKey } = await updateMerchant(request.ctx, sessionOf(request).merchant.receiverId, { ...rotation, graceMs });
        const shown = apiKey ?? (await revealCredentials(request.ctx, merchant)).apiKey;
        return showSettings(request, reply, 200, { rotated: true, credentials: { apiKey: shown, secret: merchant.secret } });
      },
    );
  }

  app.post<{ Body: Form }>(REVOKE_TOKENS_PATH, { preHandler: app.csrfProtection, config: { dashboardAction: 'tokens.revoke' } }, async (request, reply) => {
    const words = frameOf(request, reply, '').w.settings;
    if (request.body?.confirm !== 'yes')
      return showSettings(request, reply, 400, { notice: html`<p class="error" role="alert" id="notice">${words.revokeTokensUnconfirmed}</p>` });
    const count = await revokeAccountTokens(request.ctx, sessionOf(request).merchant.receiverId);
    return showSettings(request, reply, 200, { notice: html`<p class="notice" role="status" id="notice">${words.tokensRevoked(count)}</p>` });
  });

  app.post<{ Body: Form }>(PASSWORD_PATH, { preHandler: app.csrfProtection, config: { dashboardAction: 'password.change' } }, async (request, reply) => {
    const outcome = await changeDashboardPassword(request.ctx, sessionOf(request), {
      current: request.body?.current ?? '',
      next: request.body?.next ?? '',
      ...originOf(request),
    });
    if ('token' in outcome) {
      setSessionCookie(reply, outcome.token);
      return reply.redirect(`${SETTINGS_PATH}?done=password`, 303);
    }
    if ('retryAfterMs' in outcome) void reply.header('retry-after', String(Math.ceil(outcome.retryAfterMs / 1000)));
    const status = { 'wrong-password': 401, 'same-password': 400, 'weak-password': 400, 'too-many-attempts': 429, busy: 503 }[outcome.refused];
    const words = outcome.refused === 'weak-password' ? outcome.problem : outcome.refused;
    return showSettings(request, reply, status, {
      notice: html`<p class="error" role="alert" id="notice">${frameOf(request, reply, '').w.settings.passwordRefused[words]}</p>`,
    });
  });

  app.post<{ Body: Form }>(NOTIFY_HOSTS_PATH, { preHandler: app.csrfProtection, config: { dashboardAction: 'settings.update' } }, async (request, reply) => {
    const hosts = request.body?.notify_hosts ?? '';
    try {
      await updateMerchant(request.ctx, sessionOf(request).merchant.receiverId, { notifyHosts: hosts });
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'validation') throw error;
      return showSettings(request, reply, 400, { refusedHosts: hosts });
    }
    return reply.redirect(`${SETTINGS_PATH}?done=hosts`, 303);
  });

  app.post<{ Body: Form }>(SETTINGS_PATH, { preHandler: app.csrfProtection, config: { dashboardAction: 'settings.update' } }, async (request, reply) => {
    const form = request.body ?? {};
    const version = form.notify_api_version;
    const redirectUris = (form.redirect_uris ?? '')
      .split(/\r?\n/)
      .map((uri) => uri.trim())
      .filter(Boolean);
    try {
      if (!(NOTIFY_API_VERSIONS as readonly (string | undefined)[]).includes(version))
        throw fieldError('notify_api_version', `must be one of ${NOTIFY_API_VERSIONS.join(', ')}`);
      await updateMerchant(request.ctx, sessionOf(request).merchant.receiverId, {
        notifyUrl: optionalUrl(form.notify_url),
        notifyApiVersion: version,
        renditionUrl: optionalUrl(form.rendition_url),
        redirectUris,
      });
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'validation') throw error;
      return showSettings(request, reply, 400, { values: form, errors: error.fields });
    }
    return reply.redirect(`${SETTINGS_PATH}?done=saved`, 303);
  });
}
