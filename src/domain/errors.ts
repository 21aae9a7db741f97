// Failures a use case can report. Each carries a public message for the client and a kind that
// every HTTP surface maps to its own status codes (v3 and v2 differ), never an HTTP status itself.

export interface FieldError {
  field: string;
  message: string;
}

export type FailureKind =
  | 'validation' // the request is malformed or breaks a field rule
  | 'unauthenticated' // no credential, or one we do not recognise
  | 'forbidden' // the account may not use this operation
  | 'not_found' // unknown id, or a resource of another account
  | 'state' // the resource is in a state that does not allow the operation
  | 'conflict' // another request holds the resource
  | 'unprocessable' // the request contradicts an earlier one (idempotency key reuse)
  | 'rate_limited' // too many attempts of this caller: it may try again later (Retry-After)
  | 'unavailable'; // a bank did not answer; the same request may work later

export class DomainError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly fields: FieldError[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export function validationError(fields: FieldError[], message = 'Invalid request'): DomainError {
  return new DomainError('validation', message, fields);
}

export function fieldError(field: string, message: string): DomainError {
  return validationError([{ field, message }], `${field}: ${message}`);
}

export function notFound(what: string): DomainError {
  return new DomainError('not_found', `${what} not found`);
}

export function forbidden(message: string): DomainError {
  return new DomainError('forbidden', message);
}

export function stateError(message: string): DomainError {
  return new DomainError('state', message);
}

/**
 * Collects field errors so a request reports every offending field at once, one message a field
 * (the first found). It may start from what the transport's schema already found.
 *
 * Doubts are values accepted as the provider would accept them that are likely mistakes (a RUT
 * whose check digit does not match): never refused, named to developers (docs/validation-rules.md).
 * They go to a list the caller may hand in, so a transport can name them in its answer.
 */
export class FieldErrors {
  readonly list: FieldError[];

  constructor(
    found: readonly FieldError[] = [],
    readonly doubts: FieldError[] = [],
  ) {
    this.list = [...found];
  }

  add(field: string, message: string): void {
    if (!this.has(field)) this.list.push({ field, message });
  }

  doubt(field: string, message: string): void {
    this.doubts.push({ field, message });
  }

  has(field: string): boolean {
    return this.list.some((e) => e.field === field);
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw validationError(this.list);
  }
}
