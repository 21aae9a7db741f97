// Logos of banks and payment methods, drawn as SVG from the catalogue so every logo_url resolves.
import type { FastifyInstance } from 'fastify';
import { BANKS } from '../domain/banks.js';
import { PAYMENT_METHODS } from '../domain/payment-methods.js';

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Up to two initials of a bank's name past "Banco (de)", an aside in brackets left out ("Banco de Chile (Edwards Citi)": C). */
function initials(name: string): string {
  return name
    .replace(/^Banco (de )?/, '')
    .replace(/\s*\([^)]*\)/g, '')
    .split(/\s+/)
    .slice(0, 2)
    .map((w) => w[0] ?? '')
    .join('')
    .toUpperCase();
}

function logo(label: string, color: string, title: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="150" height="50" viewBox="0 0 150 50" role="img"><title>${escapeXml(title)}</title><rect width="150" height="50" rx="8" fill="${color}"/><text x="75" y="32" font-family="sans-serif" font-size="20" font-weight="bold" fill="#fff" text-anchor="middle">${escapeXml(label)}</text></svg>`;
}

export function assetRoutes(app: FastifyInstance): void {
  const banks = new Map(BANKS.map((b) => [`${b.bankId}.svg`, logo(initials(b.name), b.color, b.name)]));
  const methods = new Map(PAYMENT_METHODS.map((m) => [`${m.id}.svg`, logo(m.name.split(' ')[1] ?? m.name, '#0f172a', m.name)]));
  const serve = (images: Map<string, string>) => async (request: { params: unknown }, reply: import('fastify').FastifyReply) => {
    const image = images.get((request.params as { file: string }).file);
    if (!image) return reply.code(404).send({ status: 404, message: 'No such logo' });
    return reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(image);
  };
  app.get('/assets/banks/:file', { schema: { hide: true } }, serve(banks));
  app.get('/assets/methods/:file', { schema: { hide: true } }, serve(methods));
}
