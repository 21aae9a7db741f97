// OAuth client authentication at the token and revocation endpoints: client_id is the account's
// receiver_id and client_secret its receiver secret (the contract's "client credentials").
import { createHash, timingSafeEqual } from 'node:crypto';
import { inGrace, type Merchant } from '../domain/merchant.js';
import { TokenEndpointError } from '../domain/oauth-errors.js';
import { parseClientId } from '../domain/oauth-request.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import type { AppContext } from './context.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

// Hashing first gives equal-length inputs, so the comparison's time says nothing about the secret.
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The client, and the generation of the secret it authenticated with: what a token issued to it records. */
export interface AuthenticatedClient {
  merchant: Merchant;
  secretGeneration: number;
}

export async function authenticateClient(ctx: AppContext, credentials: ClientCredentials | undefined): Promise<AuthenticatedClient> {
  const refuse = () => new TokenEndpointError('invalid_client', 'Client authentication failed');
  if (!credentials) throw refuse();
  const receiverId = parseClientId(credentials.clientId);
  const merchant = receiverId === undefined ? undefined : await ctx.merchants.byReceiverId(receiverId);
  if (!merchant) throw refuse();
  if (sameSecret(credentials.clientSecret, merchant.secret)) return { merchant, secretGeneration: merchant.secretGeneration };
  // A secret replaced with a grace period still authenticates until the period ends.
  const previous = inGrace(merchant.previousSecret, wallClockMs(ctx.clock));
  if (previous !== undefined && sameSecret(credentials.clientSecret, previous)) return { merchant, secretGeneration: merchant.secretGeneration - 1 };
  throw refuse();
}
