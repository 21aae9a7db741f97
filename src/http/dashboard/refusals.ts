// What a page says when a use case refused a form: a sentence of the page's language for each kind
// of refusal, and for a bad field the words its form gives that field. The use case's own message is
// the API's (English, for developers): a page in Spanish does not show it. A refused action comes back
// to its page by a redirect that names the refusal (?refused=state, ?refused=amount), so the address
// is the page's, never the POST's; only codes the page knows are shown.
import { DomainError } from '../../domain/errors.js';
import type { DashboardWords } from './words.js';

/** The kinds of refusal a form may meet, and the status a page rendered with one answers. */
export const REFUSAL_STATUS: Partial<Record<DomainError['kind'], number>> = { validation: 400, forbidden: 403, state: 409, conflict: 409, unavailable: 503 };

type RefusalKind = 'state' | 'conflict' | 'forbidden' | 'unavailable';
const KINDS: readonly string[] = ['state', 'conflict', 'forbidden', 'unavailable'] satisfies RefusalKind[];

/** Whether the error is a refusal a page explains (anything else is a fault page's). */
export const isRefusal = (error: unknown): error is DomainError => error instanceof DomainError && REFUSAL_STATUS[error.kind] !== undefined;

/** The code a redirect carries: the kind, or for a bad field the field's name. */
export const refusalCode = (error: DomainError): string => (error.kind === 'validation' ? (error.fields[0]?.field ?? 'validation') : error.kind);

/** The sentence for a code, or undefined for a code this form does not know (nothing is echoed). */
export function refusalText(w: DashboardWords, code: string | undefined, fieldWords: Readonly<Record<string, string>>): string | undefined {
  if (code === undefined) return undefined;
  if (KINDS.includes(code)) return w.refusals[code as RefusalKind];
  return Object.hasOwn(fieldWords, code) ? fieldWords[code] : undefined;
}

const refused = new WeakSet<object>();

/** A refused action answers with a redirect: this tells the audit log it was refused all the same. */
export const markRefused = (request: object): void => void refused.add(request);
export const wasRefused = (request: object): boolean => refused.has(request);
