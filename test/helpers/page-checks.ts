// What every browser test of the pages checks of a page as it is now: axe-core's serious and
// critical violations, and whether the page is wider than the window (horizontal overflow).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical violations axe finds on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP, which runs no script of ours, does not apply.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(`axe.run(document).then((r) => r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

export const overflows = (page: Page): Promise<boolean> =>
  page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth') as Promise<boolean>;
