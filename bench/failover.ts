// A standby that takes over: the failover drill of test/failover/standby-takeover.test.ts
// (test/helpers/failover-drill.ts), run a few times, with what the test does not assert: how long
// writes were away. Clusters of its own on free ports, from the machine's PostgreSQL binaries.
import { debitsSubmittedTwice } from '../src/bank/demo-bank-mandates.js';
import { DRILL, type FailoverDrill, notifiedPayments, runFailoverDrill } from '../test/helpers/failover-drill.js';
import { fmt } from './load.js';
import { median } from './rounds.js';

const RUNS = 3;
/** Writes answered again within this long of the promotion (issue 26). */
const GAP_MOST_MS = 30_000;

interface Measured {
  gapMs: number;
  outageMs: number;
  promoteMs: number;
  stopToWriteMs: number;
  unavailable: number;
  withRetryAfter: number;
  otherFailures: number;
  acknowledged: number;
  found: number;
  paid: number;
  notified: number;
  charged: number;
  submittedTwice: number;
}

async function measure(drill: FailoverDrill): Promise<Measured> {
  if (drill.firstWriteAt === undefined) throw new Error('writes did not come back within 60 s of the promotion');
  const failed = drill.answers.filter((a) => a.status !== 200);
  const unavailable = failed.filter((a) => a.status === 503);
  const found =
    drill.created.length === 0 ? [] : await drill.newPrimary.selectFrom('payments').select('payment_id').where('payment_id', 'in', drill.created).execute();
  const notified = notifiedPayments(drill.receiver);
  return {
    gapMs: drill.firstWriteAt - drill.promotingAt,
    outageMs: drill.promotingAt - drill.killedAt,
    promoteMs: drill.promotedAt - drill.promotingAt,
    stopToWriteMs: drill.firstWriteAt - drill.killedAt,
    unavailable: unavailable.length,
    withRetryAfter: unavailable.filter((a) => a.retryAfter !== null).length,
    otherFailures: failed.length - unavailable.length,
    acknowledged: drill.created.length,
    found: found.length,
    paid: drill.paid.length,
    notified: drill.paid.filter((id) => notified.has(id)).length,
    charged: drill.charged.length,
    submittedTwice: await debitsSubmittedTwice(drill.newPrimary),
  };
}

const count = (n: number) => n.toLocaleString('en-US');

export async function benchFailover(): Promise<string> {
  const runs: Measured[] = [];
  for (let i = 0; i < RUNS; i++) {
    const drill = await runFailoverDrill();
    try {
      runs.push(await measure(drill));
    } finally {
      await drill.close();
    }
  }
  const gap = median(runs.map((r) => r.gapMs));
  return [
    '## A standby that takes over',
    '',
    `Measured ${new Date().toISOString()} (\`npm run bench failover\`). The drill of \`test/failover/standby-takeover.test.ts\`, ${RUNS} times: a PostgreSQL primary with one synchronous streaming standby (\`synchronous_commit = on\`, \`synchronous_standby_names = 'FIRST 1 (standby1)'\`), clusters made for the run on this machine; \`quipu serve\` (API only) and \`quipu worker\` on \`DATABASE_URL=postgres://…@primary,standby/quipu?target_session_attrs=read-write\`; ${DRILL.clients} clients creating and reading payments, paying some at DemoBank (notified to a local receiver) and charging two subscriptions (debits submitted by the worker), retrying ${DRILL.retryMs} ms after a 503. After ${DRILL.steadyMs / 1000} s the primary stops (\`pg_ctl stop -m immediate\`); ${DRILL.outageMs / 1000} s later the standby is promoted (\`pg_ctl promote\`, which waits until it takes writes, looking every 100 ms: the gap can be shorter than its time); the load goes on until a create is answered 200 again, and ${DRILL.afterMs / 1000} s more. **Gap** is from the promotion asked for to the first create answered 200.`,
    '',
    '| run | gap: promotion → first write | pg_ctl promote | primary stopped → first write | 503 answers (with Retry-After) | other failures | creates acknowledged / on the new primary | paid / notified | charges | debits submitted twice |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map((r, i) =>
      [
        '',
        String(i + 1),
        fmt.ms(r.gapMs),
        fmt.ms(r.promoteMs),
        fmt.ms(r.stopToWriteMs),
        `${count(r.unavailable)} (${count(r.withRetryAfter)})`,
        count(r.otherFailures),
        `${count(r.acknowledged)} / ${count(r.found)}`,
        `${count(r.paid)} / ${count(r.notified)}`,
        count(r.charged),
        count(r.submittedTwice),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
    '',
    `Median gap **${fmt.ms(gap)}**: target writes answered again within ${GAP_MOST_MS / 1000} s of the promotion ${gap <= GAP_MOST_MS ? 'met' : '**missed**'}.`,
    '',
  ].join('\n');
}
