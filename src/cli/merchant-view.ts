// How the CLI shows an account.
import type { Merchant } from '../domain/merchant.js';

export function merchantView(merchant: Merchant, showSecret: boolean) {
  return {
    receiver_id: merchant.receiverId,
    name: merchant.name,
    developer: merchant.developer,
    features: merchant.features,
    notify_url: merchant.notifyUrl,
    notify_hosts: merchant.notifyHosts,
    notify_api_version: merchant.notifyApiVersion,
    rendition_url: merchant.renditionUrl,
    parent_receiver_id: merchant.parentReceiverId,
    payment_methods: merchant.paymentMethods,
    users: merchant.users,
    collect_accounts: merchant.collectAccounts,
    country_code: merchant.countryCode,
    ...(showSecret ? { secret: merchant.secret } : {}),
  };
}

export function printHuman(value: Record<string, unknown>): void {
  for (const [key, v] of Object.entries(value)) {
    console.log(`${key.padEnd(20)} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`);
  }
}
