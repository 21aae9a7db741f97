// The frame of every payer page: language, title, the language switch and the stylesheet. No
// script runs on these pages; everything works with plain links and forms.
import { type Html, html } from '../../render/html.js';
import { pageDocument } from '../html.js';
import { type Lang, type Messages } from '../../render/words.js';

export interface PageFrame {
  lang: Lang;
  m: Messages;
  /** The GET address of this page, for the language switch. */
  selfPath: string;
}

export function layout(frame: PageFrame, title: string, content: Html): string {
  const other: Lang = frame.lang === 'es' ? 'en' : 'es';
  const header = html`<a class="lang" href="${frame.selfPath}?lang=${other}" hreflang="${other}">${frame.m.otherLanguage}</a>`;
  return pageDocument({ lang: frame.m.htmlLang, title, header, content });
}
