// A scope of pages for payers (the payment pages, the mandate signing pages): the payer pages'
// defences under the scope's path, a page saying what happened for every fault, and no place in the
// OpenAPI document.
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { html } from '../../render/html.js';
import type { Messages } from '../../render/words.js';
import { frameOf, sendPage } from './routes.js';
import { secureCookies } from '../cookies.js';
import { pageFaultOf } from '../page-security.js';
import { payerSecurity } from './security.js';

/** What a scope's fault pages name: the thing not found, and the page to start again from. */
export interface FaultWords {
  notFoundTitle: string;
  notFound: string;
  formInvalid: string;
}

export async function payerPageScope(app: FastifyInstance, options: { config: Config; path: string; words: (m: Messages) => FaultWords }): Promise<void> {
  const { config, path } = options;
  await payerSecurity(app, { secureCookies: secureCookies(config), formTtlSeconds: config.payerFormTtlSeconds });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const frame = frameOf(request, reply, request.url.split('?')[0]!, path);
    const { m } = frame;
    const words = options.words(m);
    const page = (status: number, title: string, text: string) => sendPage(reply, frame, status, title, html`<p class="notice">${text}</p>`);
    const fault = pageFaultOf(error);
    if (fault.kind === 'not-found') return page(fault.status, words.notFoundTitle, words.notFound);
    if (fault.kind === 'form') return page(fault.status, m.formTitle, words.formInvalid);
    if (fault.kind === 'bad-request') return page(fault.status, m.errorTitle, m.badRequest);
    request.log.error({ err: error }, 'payer page failed');
    return page(fault.status, m.errorTitle, m.error);
  });
  // Pages for people, not operations of the API: they stay out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
}
