// Reading Quipu-Warnings (src/http/warnings.ts): `field=message` entries, each part percent-encoded.
import type { JsonResponse } from './http.js';

export const WARNINGS_HEADER = 'quipu-warnings';

/** The header's entries, decoded: field → message (none when the header is absent). */
export function warningsOf(res: Pick<JsonResponse, 'headers'>): Record<string, string> {
  const header = res.headers.get(WARNINGS_HEADER);
  if (header === null) return {};
  return Object.fromEntries(header.split(', ').map((entry) => entry.split('=').map(decodeURIComponent) as [string, string]));
}
