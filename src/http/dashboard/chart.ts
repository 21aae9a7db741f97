// A bar chart drawn on the server as SVG: no script, no image request, and no style attribute for
// the CSP to refuse (presentation attributes and the stylesheet's classes only).
import { type Html, html } from '../../render/html.js';

export interface Bar {
  label: string;
  value: number;
  /** What the bar's tooltip says. */
  title: string;
}

const WIDTH = 600;
const HEIGHT = 160;
const BASE = 140;

export function barChart(caption: string, bars: readonly Bar[], maxLabel: string): Html {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const step = WIDTH / Math.max(1, bars.length);
  const width = Math.max(1, step - 2);
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${caption}" xmlns="http://www.w3.org/2000/svg">
<title>${caption}</title>
<line class="axis" x1="0" y1="${BASE}" x2="${WIDTH}" y2="${BASE}"/>
<text x="0" y="10">${maxLabel}</text>
${bars.map((bar, i) => {
  const height = Math.round((bar.value / max) * (BASE - 16));
  return html`<rect class="bar" x="${(i * step).toFixed(1)}" y="${BASE - height}" width="${width.toFixed(1)}" height="${height}"><title>${bar.title}</title></rect>`;
})}
<text x="0" y="${HEIGHT - 4}">${bars[0]?.label ?? ''}</text>
<text x="${WIDTH}" y="${HEIGHT - 4}" text-anchor="end">${bars.at(-1)?.label ?? ''}</text>
</svg>`;
}
