// HTML built from tagged templates: every interpolated value is escaped unless it is already
// markup built the same way, so a merchant's subject can never become markup.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Html(out);
}

export const STYLESHEET_PATH = '/payment/assets/payer.css';

export interface PageDocument {
  /** BCP 47 language of the page. */
  lang: string;
  title: string;
  /** Extra content of the header bar (a language switch). */
  header?: Html | string;
  content: Html;
  /** One inline script, allowed by the page's CSP nonce (the form_post page only). */
  script?: { nonce: string; source: string };
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
</head>
<body>
<header><span class="brand">Quipu</span>${page.header ?? ''}</header>
<main>
<h1>${page.title}</h1>
${page.content}
</main>
${page.script ? html`<script nonce="${page.script.nonce}">${page.script.source}</script>` : ''}
</body>
</html>`}`;
}
