// The document every server-rendered page shares (the payer pages, the authorization server's).
import { Html, html } from '../render/html.js';

export const STYLESHEET_PATH = '/payment/assets/payer.css';

export interface PageDocument {
  /** BCP 47 language of the page. */
  lang: string;
  title: string;
  /** Extra content of the header bar (a language switch). */
  header?: Html | string;
  content: Html;
  /** A stylesheet of this surface, after the shared one (the dashboard's). */
  stylesheet?: string;
  /** One inline script, allowed by the page's CSP nonce (the form_post page only). */
  script?: { nonce: string; source: string };
}

/** A script is not HTML-escaped (entities are not decoded inside <script>); ours never holds `</`, which would end it. */
function scriptText(source: string): Html {
  if (source.includes('</')) throw new Error('an inline script may not contain </');
  return new Html(source);
}

/** The document every server-rendered page shares: head, brand bar, title and content. */
export function pageDocument(page: PageDocument): string {
  return `<!doctype html>${html`<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${page.title} · Quipu</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${page.stylesheet ? html`<link rel="stylesheet" href="${page.stylesheet}">` : ''}
</head>
<body>
<header><span class="brand">Quipu</span>${page.header ?? ''}</header>
<main>
<h1>${page.title}</h1>
${page.content}
</main>
${page.script ? html`<script nonce="${page.script.nonce}">${scriptText(page.script.source)}</script>` : ''}
</body>
</html>`}`;
}
