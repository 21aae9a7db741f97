// A load driver of its own process (so it does not share the sampled server's CPU with the bench):
// autocannon with a mix of requests per connection, the payment ids of reads and refunds drawn at
// random from those given. Prints autocannon's result as JSON on stdout.
import autocannon, { type Request } from 'autocannon';

export interface MixedLoad {
  url: string;
  apiKey: string;
  /** Paid payments, for reads and refunds. */
  paymentIds: string[];
  connections: number;
  seconds: number;
  /** Of every 20 requests: creates, reads, refunds. */
  mix: { creates: number; reads: number; refunds: number };
}

export const PAYMENT_BODY = JSON.stringify({
  amount: 1000,
  currency: 'CLP',
  subject: 'Mixed load',
  transaction_id: 'INV-1',
  return_url: 'https://shop.example/return',
  notify_url: 'https://shop.example/notify',
});

/** The mix spread over a sequence, so no connection sends a run of one kind. */
function sequence(mix: MixedLoad['mix'], kinds: Record<'creates' | 'reads' | 'refunds', Request>): Request[] {
  const total = mix.creates + mix.reads + mix.refunds;
  const sent = { creates: 0, reads: 0, refunds: 0 };
  const out: Request[] = [];
  for (let i = 1; i <= total; i++) {
    // The kind furthest behind its share so far goes next.
    const next = (Object.keys(sent) as (keyof typeof sent)[]).sort((a, b) => mix[b] * i - sent[b] * total - (mix[a] * i - sent[a] * total))[0]!;
    sent[next]++;
    out.push(kinds[next]);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = JSON.parse(process.argv[2]!) as MixedLoad;
  const pick = () => options.paymentIds[Math.floor(Math.random() * options.paymentIds.length)]!;
  const json = { 'content-type': 'application/json', 'x-api-key': options.apiKey };
  const requests = sequence(options.mix, {
    creates: { method: 'POST', path: '/v3/payments', headers: json, body: PAYMENT_BODY },
    reads: { method: 'GET', headers: { 'x-api-key': options.apiKey }, setupRequest: (request) => ({ ...request, path: `/v3/payments/${pick()}` }) },
    refunds: { method: 'POST', headers: json, body: '{"amount":1}', setupRequest: (request) => ({ ...request, path: `/v3/payments/${pick()}/refunds` }) },
  });
  const result = await autocannon({ url: options.url, connections: options.connections, duration: options.seconds, requests });
  process.stdout.write(
    JSON.stringify({
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      total: result.requests.total,
    }),
  );
}
