// The API reference at /docs: Swagger UI over /openapi.json, under Quipu's name and mark rather
// than the generator's (page title, top-bar logo, favicon), without its box to explore another
// document. Its "Try it out" bodies are the examples of request-examples.ts.
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

// A knot on a cord: the quipu the service is named after.
const MARK = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40" role="img"><title>Quipu</title><path d="M6 4v32M14 4v22M22 4v28" stroke="#e2e8f0" stroke-width="3" stroke-linecap="round"/><circle cx="6" cy="14" r="4" fill="#f59e0b"/><circle cx="14" cy="20" r="4" fill="#f59e0b"/><circle cx="22" cy="10" r="4" fill="#f59e0b"/><text x="34" y="28" font-family="sans-serif" font-size="22" font-weight="bold" fill="#f8fafc">Quipu</text></svg>`;
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0f172a"/><path d="M9 5v22M16 5v16M23 5v20" stroke="#e2e8f0" stroke-width="3" stroke-linecap="round"/><circle cx="9" cy="13" r="3.5" fill="#f59e0b"/><circle cx="16" cy="17" r="3.5" fill="#f59e0b"/><circle cx="23" cy="10" r="3.5" fill="#f59e0b"/></svg>`;

/**
 * The top bar keeps the mark, not Swagger UI's box that loads another document by URL ("Explore"):
 * this page documents this installation, and Swagger UI draws the box whatever it is configured with.
 */
const WITHOUT_EXPLORE = '.swagger-ui .topbar .download-url-wrapper { display: none; } .swagger-ui .topbar-wrapper { justify-content: space-between; }';

export async function apiReference(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    logo: { type: 'image/svg+xml', content: MARK, href: '/docs' },
    theme: {
      title: 'Quipu API reference',
      favicon: [{ filename: 'quipu.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: FAVICON }],
      css: [{ filename: 'quipu.css', content: WITHOUT_EXPLORE }],
    },
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: true },
  });
}
