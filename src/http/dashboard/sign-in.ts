// Signing in and out. A wrong email or password and too many attempts each render the form again
// with a message and start no session. A user with a second factor is then asked for its code on a
// page of its own, with a halfway session that opens no other page; the right code replaces it with
// a full session under a new token. Signing out deletes the session and forgets the form secret, so
// neither the cookie nor a form of the old session is worth anything afterwards.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { signOut, signOutEverywhere } from '../../app/dashboard-sessions.js';
import { type SignInOrigin, signIn } from '../../app/dashboard-sign-in.js';
import { completeSecondFactor, pendingSession } from '../../app/second-factor.js';
import { MAX_SIGN_IN_EMAIL } from '../../domain/sign-in-throttle.js';
import { type Html, html } from '../../render/html.js';
import { csrfField, errorLine } from '../payer/pages.js';
import { frameOf, sendPage, sessionOf } from './layout.js';
import { clearCsrfCookie, clearSessionCookie, DASHBOARD_PATH, sessionToken, setSessionCookie } from './session-cookie.js';
import type { DashboardWords } from './words.js';

export const SIGN_IN_PATH = `${DASHBOARD_PATH}/sign-in`;
export const SECOND_FACTOR_PATH = `${SIGN_IN_PATH}/code`;

type Form = Record<string, string | undefined>;

/** How each refusal is answered; the waits come with Retry-After. */
const REFUSALS = {
  'wrong-credentials': { status: 401, words: 'wrongCredentials' },
  'too-many-attempts': { status: 429, words: 'tooManyAttempts' },
  busy: { status: 503, words: 'signInBusy' },
  'two-factor-required': { status: 403, words: 'twoFactorRequired' },
  'password-expired': { status: 403, words: 'passwordExpired' },
  'wrong-code': { status: 401, words: 'wrongCode' },
} as const;

type Refusal = (typeof REFUSALS)[keyof typeof REFUSALS]['words'];

/** A sign-in step's page: its form, posted to its own address, with the refusal that brought it back. */
function stepPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  path: string,
  title: (w: DashboardWords) => string,
  fields: (w: DashboardWords) => Html,
  error?: Refusal,
): FastifyReply {
  const frame = frameOf(request, reply, path);
  const { w } = frame;
  return sendPage(
    reply,
    frame,
    status,
    title(w),
    html`<form method="post" action="${path}" class="sign-in">
${csrfField(frame.csrf)}
${errorLine(error && w[error])}
${fields(w)}
</form>`,
  );
}

const signInPage = (request: FastifyRequest, reply: FastifyReply, status: number, email: string, error?: Refusal) =>
  stepPage(
    request,
    reply,
    status,
    SIGN_IN_PATH,
    (w) => w.signInTitle,
    (w) => html`<label for="email">${w.email}</label>
<input type="email" id="email" name="email" required autocomplete="username" value="${email}">
<label for="password">${w.password}</label>
<input type="password" id="password" name="password" required autocomplete="current-password">
<button id="sign-in">${w.signIn}</button>`,
    error,
  );

const codePage = (request: FastifyRequest, reply: FastifyReply, status: number, error?: Refusal) =>
  stepPage(
    request,
    reply,
    status,
    SECOND_FACTOR_PATH,
    (w) => w.secondFactorTitle,
    (w) => html`<p>${w.secondFactorHelp}</p>
<label for="code">${w.code}</label>
<input type="text" id="code" name="code" required autocomplete="one-time-code" inputmode="text" maxlength="64">
<button id="verify">${w.verify}</button>`,
    error,
  );

const retryAfter = (reply: FastifyReply, outcome: object) => {
  if ('retryAfterMs' in outcome) void reply.header('retry-after', String(Math.ceil((outcome.retryAfterMs as number) / 1000)));
};

/** Where a session is opened from, kept with it for its user's sessions page. */
export const originOf = (request: FastifyRequest): SignInOrigin => ({ address: request.ip, userAgent: request.headers['user-agent'] });

function signedOut(reply: FastifyReply): FastifyReply {
  clearSessionCookie(reply);
  clearCsrfCookie(reply);
  return reply.redirect(SIGN_IN_PATH, 303);
}

export function signInRoutes(app: FastifyInstance): void {
  app.get(SIGN_IN_PATH, async (request, reply) => signInPage(request, reply, 200, ''));

  app.post<{ Body: Form }>(SIGN_IN_PATH, { preHandler: app.csrfProtection }, async (request, reply) => {
    const email = request.body?.email ?? '';
    const outcome = await signIn(request.ctx, { email, password: request.body?.password ?? '', ...originOf(request) });
    if ('token' in outcome) {
      setSessionCookie(reply, outcome.token);
      return reply.redirect(outcome.secondFactorDue ? SECOND_FACTOR_PATH : DASHBOARD_PATH, 303);
    }
    retryAfter(reply, outcome);
    const refusal = REFUSALS[outcome.refused];
    // An over-long email is not echoed back into the page.
    return signInPage(request, reply, refusal.status, email.length > MAX_SIGN_IN_EMAIL ? '' : email, refusal.words);
  });

  app.get(SECOND_FACTOR_PATH, async (request, reply) => {
    const token = sessionToken(request);
    if (!token || !(await pendingSession(request.ctx, token))) return reply.redirect(SIGN_IN_PATH, 303);
    return codePage(request, reply, 200);
  });

  app.post<{ Body: Form }>(SECOND_FACTOR_PATH, { preHandler: app.csrfProtection }, async (request, reply) => {
    const token = sessionToken(request);
    const outcome = token ? await completeSecondFactor(request.ctx, token, request.body?.code ?? '', originOf(request)) : ({ refused: 'expired' } as const);
    if ('token' in outcome) {
      setSessionCookie(reply, outcome.token);
      return reply.redirect(DASHBOARD_PATH, 303);
    }
    // Too late, or no halfway session: the password again.
    if (outcome.refused === 'expired') return reply.redirect(SIGN_IN_PATH, 303);
    retryAfter(reply, outcome);
    const refusal = REFUSALS[outcome.refused];
    return codePage(request, reply, refusal.status, refusal.words);
  });

  app.post(`${DASHBOARD_PATH}/sign-out`, { preHandler: app.csrfProtection, config: { dashboardAction: 'session.end' } }, async (request, reply) => {
    await signOut(request.ctx, sessionToken(request)!);
    return signedOut(reply);
  });

  app.post(`${DASHBOARD_PATH}/sign-out-everywhere`, { preHandler: app.csrfProtection, config: { dashboardAction: 'session.end' } }, async (request, reply) => {
    await signOutEverywhere(request.ctx, sessionOf(request));
    return signedOut(reply);
  });
}
