// An attempt of a message in a few words, as `quipu events resend --wait` and `quipu payments show` print it.
import type { attemptView } from '../delivery/message-view.js';

/** Its outcome, status code and latency, and why it failed. */
export function lastAttempt(a: ReturnType<typeof attemptView> | undefined): string | null {
  if (!a) return null;
  return `${a.outcome} ${a.status_code ?? '-'} ${a.latency_ms} ms${a.outcome === 'delivered' || !a.error ? '' : ` (${a.error})`}`;
}
