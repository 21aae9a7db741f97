// Payments of a `quipu serve` made over its API, and paid as its operator pays them: the bank's
// credits fed to POST /operator/v1/credits (what `quipu reconcile` and a statement feed run), each
// call reconciling its payments and writing their notifications in one transaction.
import { DEMO_COLLECTION_ACCOUNT } from '../src/domain/collection-account.js';

/** Credits per call, of the 1,000 the operator API takes. */
const CREDITS_PER_CALL = 500;

interface Account {
  url: string;
  apiKey: string;
}

/** `count` payments created with POST /v3/payments, `clients` at a time; their ids. */
export async function createPayments(account: Account, count: number, body: (i: number) => object, clients = 1): Promise<string[]> {
  const headers = { 'content-type': 'application/json', 'x-api-key': account.apiKey };
  const ids: string[] = [];
  let next = 0;
  const client = async () => {
    while (next < count) {
      const created = await fetch(`${account.url}/v3/payments`, { method: 'POST', headers, body: JSON.stringify(body(next++)) });
      if (created.status !== 200) throw new Error(`POST /v3/payments answered ${created.status}: ${await created.text()}`);
      ids.push(((await created.json()) as { payment_id: string }).payment_id);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return ids;
}

/** Pays each of `paymentIds` (of `amount` CLP) with a credit of its own; every credit must pay its payment. */
export async function payByCredits(url: string, operatorToken: string, paymentIds: string[], amount: number): Promise<void> {
  const credits = paymentIds.map((id) => ({
    bank_reference: `credit-${id}`,
    account: DEMO_COLLECTION_ACCOUNT.number,
    amount,
    currency: 'CLP',
    reference: id,
    credited_at: new Date().toISOString(),
  }));
  for (let i = 0; i < credits.length; i += CREDITS_PER_CALL) {
    const fed = await fetch(`${url}/operator/v1/credits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorToken}` },
      body: JSON.stringify({ credits: credits.slice(i, i + CREDITS_PER_CALL) }),
    });
    const outcome = (await fed.json()) as { matched: number };
    if (outcome.matched !== Math.min(CREDITS_PER_CALL, credits.length - i)) throw new Error(`credits did not pay the payments: ${JSON.stringify(outcome)}`);
  }
}
