// Ids as developers copy them: monospace, on one line (a long one is cut with an ellipsis, the whole
// id in its tooltip), selected whole by one click (CSS user-select: all), which is all a page without
// script offers; and a copy button beside each, added by the one small inline script of dashboard
// pages, which the page's CSP allows by a nonce of that answer only (as the form_post page's is).
import { type Html, html } from '../../render/html.js';
import type { DashboardWords } from './words.js';

/** An id; `href` makes it the link to its page. */
export function idCode(id: string, href?: string): Html {
  const code = html`<code class="id" title="${id}" data-copy="${id}">${id}</code>`;
  return href ? html`<a href="${href}" class="id-link">${code}</a>` : code;
}

/**
 * Adds a button after every [data-copy]: it writes the id to the clipboard or, where the browser
 * gives no clipboard (plain http off localhost), selects it for the user to copy, and says which in
 * a live region. Plain JavaScript for the browser (the project's TypeScript has no DOM types); the
 * words come in as JSON data, never as markup.
 */
const ADD_COPY_BUTTONS = `(words) => {
  for (const target of document.querySelectorAll('[data-copy]')) {
    const value = target.dataset.copy;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = words.copy;
    button.setAttribute('aria-label', words.copy + ' ' + value);
    const said = document.createElement('span');
    said.className = 'copied';
    said.setAttribute('role', 'status');
    const select = () => {
      const range = document.createRange();
      range.selectNodeContents(target);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      said.textContent = words.selected;
    };
    button.addEventListener('click', () => {
      if (!navigator.clipboard) return select();
      navigator.clipboard.writeText(value).then(() => { said.textContent = words.copied; }, select);
    });
    // Inside a dd (a list of dt and dd may hold nothing else), else after the id or its link.
    if (target.tagName === 'DD') target.append(button, said);
    else (target.closest('a') || target).after(button, said);
  }
}`;

/** The script's source for a page of this language. */
export function copyScript(w: DashboardWords): string {
  const words = JSON.stringify({ copy: w.copy.copy, copied: w.copy.copied, selected: w.copy.selected }).replace(/</g, '\\u003c');
  return `(${ADD_COPY_BUTTONS})(${words});`;
}
