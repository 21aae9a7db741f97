// The contract's errors of the authorization code flow (A/E codes with their error_type) and the
// RFC 6749 error codes of the token and revocation endpoints.
//
// Each flow error also carries the standard OAuth `error` parameter, so generic clients (such as
// openid-client) recognise the redirect as an error instead of a response without a code.

export type FlowErrorType = 'RETRY_IMMEDIATELY' | 'INVALID_REQUEST' | 'DO_NOT_RETRY';

export type FlowErrorCode = 'A001' | 'A002' | 'A003' | 'E001' | 'E002' | 'E003' | 'E101' | 'E102' | 'E201' | 'E999';

type StandardError = 'access_denied' | 'invalid_request' | 'invalid_scope' | 'unsupported_response_type' | 'temporarily_unavailable' | 'server_error';

interface FlowErrorRule {
  type: FlowErrorType;
  error: StandardError;
  meaning: string;
}

/**
 * The contract names the codes and types; where it leaves a code's type open, the choice is what a
 * merchant should do next: a refusal is not retried on its own, a user who never started or
 * mistyped a password may start again at once.
 */
export const FLOW_ERRORS: Readonly<Record<FlowErrorCode, FlowErrorRule>> = {
  A001: { type: 'DO_NOT_RETRY', error: 'access_denied', meaning: 'The user refused consent' },
  A002: { type: 'INVALID_REQUEST', error: 'invalid_request', meaning: 'Parameter error in the authorization request' },
  A003: { type: 'RETRY_IMMEDIATELY', error: 'access_denied', meaning: 'The user did not start the authentication flow in time' },
  E001: { type: 'RETRY_IMMEDIATELY', error: 'temporarily_unavailable', meaning: 'Timeout; the flow can be restarted at once' },
  E002: { type: 'DO_NOT_RETRY', error: 'temporarily_unavailable', meaning: 'Error in the operation with the institution; do not retry in the short term' },
  E003: {
    type: 'RETRY_IMMEDIATELY',
    error: 'temporarily_unavailable',
    meaning: 'Controlled error processing the institution; the flow can be restarted at once',
  },
  E101: { type: 'RETRY_IMMEDIATELY', error: 'access_denied', meaning: 'The personal identifier given is not valid' },
  E102: { type: 'RETRY_IMMEDIATELY', error: 'access_denied', meaning: 'The institution refused the credentials given' },
  E201: { type: 'DO_NOT_RETRY', error: 'temporarily_unavailable', meaning: 'The institution is unavailable or cannot process the authentication' },
  E999: { type: 'DO_NOT_RETRY', error: 'server_error', meaning: 'Terminal error' },
};

/** A failure of the authorization flow, delivered to the client's redirect_uri. */
export interface FlowError {
  code: FlowErrorCode;
  description: string;
  /** Overrides the code's standard error where A002 has a more precise one. */
  error?: StandardError;
}

export function flowError(code: FlowErrorCode, description: string = FLOW_ERRORS[code].meaning, error?: StandardError): FlowError {
  return error ? { code, description, error } : { code, description };
}

/** The redirect parameters of a flow error (state only when the client sent one). */
export function flowErrorParams(failure: FlowError, state: string | null): Record<string, string> {
  const rule = FLOW_ERRORS[failure.code];
  return {
    error: failure.error ?? rule.error,
    error_code: failure.code,
    error_type: rule.type,
    error_description: failure.description,
    ...(state !== null ? { state } : {}),
  };
}

export type TokenErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope';

/** An RFC 6749 error of the token or revocation endpoint. */
export class TokenEndpointError extends Error {
  constructor(
    readonly code: TokenErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = 'TokenEndpointError';
  }
}
