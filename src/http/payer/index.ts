// The payment cycle's HTTP surfaces: the payer's pages (HTML, in their own scope with cookies,
// CSRF and security headers) and the JSON endpoints around them (operator credits, the merchant's
// mark-paid extension, the DemoBank sandbox).
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { DomainError } from '../../domain/errors.js';
import { cycleApiRoutes } from '../operator/index.js';
import { html } from '../../render/html.js';
import { messages } from '../../render/words.js';
import { languageOf } from './i18n.js';
import { sendPage, payerRoutes } from './routes.js';
import { payerSecurity } from './security.js';

async function payerPages(app: FastifyInstance, { config }: { config: Config }): Promise<void> {
  await payerSecurity(app, { secureCookies: config.publicBaseUrl.startsWith('https:'), formTtlSeconds: config.payerFormTtlSeconds });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const lang = languageOf(request, reply);
    const m = messages(lang);
    const frame = { lang, m, selfPath: request.url.split('?')[0]! };
    const page = (status: number, title: string, text: string) => sendPage(reply, frame, status, title, html`<p class="notice">${text}</p>`);
    if (error instanceof DomainError && error.kind === 'not_found') return page(404, m.notFoundTitle, m.notFound);
    // A missing or stale CSRF token: the form expired, or it did not come from our page.
    if (error.code?.startsWith('FST_CSRF')) return page(403, m.formTitle, m.formInvalid);
    if ((error instanceof DomainError && error.kind === 'validation') || error.validation || (error.statusCode ?? 500) < 500) {
      return page(error.statusCode && error.statusCode < 500 ? error.statusCode : 400, m.errorTitle, m.badRequest);
    }
    request.log.error({ err: error }, 'payer page failed');
    return page(500, m.errorTitle, m.error);
  });
  // Pages for people, not operations of the API: they stay out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  payerRoutes(app);
}

export async function paymentCycleRoutes(app: FastifyInstance, options: { config: Config }): Promise<void> {
  await app.register(payerPages, options);
  await app.register(cycleApiRoutes, options);
}
