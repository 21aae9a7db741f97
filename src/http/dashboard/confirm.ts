// The step before a destructive action (deleting a payment, refunding one, a DemoBank decision that
// ends a mandate): the page's button opens this page with a GET, which says what will happen and
// posts the action only from its red button; Cancel goes back. No script: a page of its own.
import { type Html, html } from '../../render/html.js';
import { csrfField } from '../payer/pages.js';
import type { DashboardFrame } from './layout.js';

export interface Confirmation {
  /** What will happen, in the page's words. */
  details: Html;
  /** Where the confirmed form posts. */
  action: string;
  button: string;
  /** The page the user came from. */
  back: string;
  /** Hidden fields the action takes (the refund's amount). */
  fields?: Html;
}

export function confirmationContent(frame: DashboardFrame, c: Confirmation): Html {
  return html`<div class="confirm">${c.details}
<p><strong>${frame.w.confirm.irreversible}</strong></p>
<div class="actions"><form method="post" action="${c.action}">${csrfField(frame.csrf)}${c.fields ?? ''}<button class="danger" id="confirm">${c.button}</button></form>
<a href="${c.back}" id="cancel">${frame.w.confirm.cancel}</a></div></div>`;
}
