// An integrator opens a child collection account. The child inherits developer mode, may be
// charged integrator fees, and its credentials work at once.
import { type FieldError, forbidden } from '../domain/errors.js';
import type { RawValue } from '../domain/field-rules.js';
import type { Merchant } from '../domain/merchant.js';
import { parseReceiverRequest } from '../domain/receiver-request.js';
import { notifyPolicy } from '../domain/network-address.js';
import type { AppContext } from './context.js';
import { createMerchant, type MerchantCredentials } from './create-merchant.js';

/**
 * `found`: field errors the transport's schema already found, reported with the rules' own. Values
 * accepted that are likely mistakes are added to `doubts`, for developers to hear of.
 */
export async function createReceiver(
  ctx: AppContext,
  integrator: Merchant,
  raw: Readonly<Record<string, RawValue>>,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
): Promise<MerchantCredentials> {
  if (!integrator.features.integrator) throw forbidden('Creating receivers is only available to accounts that contracted the integrator feature');
  const req = parseReceiverRequest(raw, integrator.developer, notifyPolicy(integrator, ctx.config), found, doubts);
  const { credentials } = await createMerchant(ctx, {
    name: req.businessName,
    developer: integrator.developer,
    notifyUrl: req.notifyUrl ?? null,
    renditionUrl: req.renditionUrl ?? null,
    // The integrator's own hosts took the URLs: the new account registers the one its notify_url does not.
    notifyHosts: req.renditionUrl !== undefined ? new URL(req.renditionUrl).hostname : undefined,
    parentReceiverId: integrator.receiverId,
    users: [req.adminEmail],
    countryCode: req.countryCode,
    profile: req.profile,
  });
  return credentials;
}
