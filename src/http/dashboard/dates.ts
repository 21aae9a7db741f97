// Dates as the dashboard shows them: short ("26 nov · 18:01", Santiago), the long form with year and
// zone in the tooltip, the instant itself in datetime for machines.
import { formatInstant, formatShortInstant } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import type { Messages } from '../../render/words.js';

export const when = (instant: Date, m: Messages): Html =>
  html`<time datetime="${instant.toISOString()}" title="${formatInstant(instant, m)}">${formatShortInstant(instant, m)}</time>`;
