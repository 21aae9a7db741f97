// Banks and payment methods as the payment APIs list them, with logos served by this server.
import type { MerchantDirectory } from '../app/merchant-directory.js';
import { banksFor } from '../domain/banks.js';
import { notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { amountToNumber } from '../domain/money.js';
import { findPaymentMethod } from '../domain/payment-methods.js';

export function bankList(baseUrl: string, developer: boolean) {
  return {
    banks: banksFor(developer).map((b) => ({
      bank_id: b.bankId,
      name: b.name,
      message: b.message,
      min_amount: amountToNumber(b.minAmount),
      type: b.type,
      parent: b.parent,
      logo_url: `${baseUrl}/assets/banks/${b.bankId}.svg`,
    })),
  };
}

export function paymentMethodList(baseUrl: string, merchant: Merchant) {
  return {
    paymentMethods: merchant.paymentMethods.flatMap((id) => {
      const method = findPaymentMethod(id);
      return method ? [{ id: method.id, name: method.name, logo_url: `${baseUrl}/assets/methods/${method.id}.svg` }] : [];
    }),
  };
}

/** The account whose payment methods `caller` asks for: its own, or, for an integrator, one of its receivers'. */
export async function paymentMethodsOwner(merchants: MerchantDirectory, caller: Merchant, receiverId: number): Promise<Merchant> {
  const target = receiverId === caller.receiverId ? caller : await merchants.byReceiverId(receiverId);
  if (!target || (target !== caller && target.parentReceiverId !== caller.receiverId)) throw notFound('Merchant');
  return target;
}
