// A standby that takes over (issue 26): PostgreSQL clusters of the test's own, a primary with a
// synchronous streaming standby, under a steady load on `quipu serve` and `quipu worker`, which
// reach them through a DATABASE_URL naming both hosts. The primary stops at once and the standby
// is promoted; the processes find it without a restart. Nothing acknowledged is lost, every paid
// payment's notification is delivered, no debit reaches the bank twice, and while the primary is
// away requests are answered 503 with Retry-After, never 500 and never left hanging. How long
// writes were away is the bench's to measure (`npm run bench failover`), not this test's.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debitsSubmittedTwice } from '../../src/bank/demo-bank-mandates.js';
import { openDatabase } from '../../src/store/database.js';
import { storageFailureOf } from '../../src/store/storage-failure.js';
import { testDatabaseKind } from '../helpers/database.js';
import { debitsInFlight, notifiedPayments, runFailoverDrill, type FailoverDrill } from '../helpers/failover-drill.js';
import { freePort } from '../helpers/process.js';
import { postgresBinaries, startStandbyPair, type StandbyPair } from '../helpers/standby-pair.js';

const withClusters = describe.skipIf(testDatabaseKind() === 'sqlite' || postgresBinaries() === undefined);

withClusters('a DATABASE_URL naming several hosts', () => {
  let pair: StandbyPair;
  beforeAll(async () => {
    pair = await startStandbyPair();
  });
  afterAll(async () => pair?.stop());

  /** The port of the server a connection of `url`'s pool lands on. */
  async function serverPort(url: string): Promise<number> {
    const opened = openDatabase(url, { poolSize: 1 });
    try {
      return (await sql<{ port: number }>`select inet_server_port() as port`.execute(opened.db)).rows[0]!.port;
    } finally {
      await opened.close();
    }
  }

  it('connects to the first host, in order, that takes writes: past one that refuses connections and a read-only standby', async () => {
    const nothing = await freePort();
    expect(await serverPort(`postgres://postgres@127.0.0.1:${nothing},127.0.0.1:${pair.standbyPort},127.0.0.1:${pair.primaryPort}/postgres`)).toBe(
      pair.primaryPort,
    );
  });

  it('fails as an unavailable database, naming each host, when none takes writes', async () => {
    const nothing = await freePort();
    const failed = await serverPort(`postgres://postgres@127.0.0.1:${pair.standbyPort},127.0.0.1:${nothing}/postgres`).catch((error: unknown) => error);
    expect(storageFailureOf(failed)).toBe('database unavailable');
    expect((failed as Error).message).toMatch(new RegExp(`127.0.0.1:${pair.standbyPort} is read-only; 127.0.0.1:${nothing}: .*ECONNREFUSED`));
  });
});

withClusters('a synchronous standby promoted under load', () => {
  let drill: FailoverDrill;

  beforeAll(async () => {
    drill = await runFailoverDrill();
  }, 180_000);
  afterAll(async () => drill?.close());

  it('takes writes again, with the server and worker processes that ran before, never restarted', () => {
    expect(drill.firstWriteAt).toBeDefined();
    for (const { child } of [drill.server, drill.worker])
      expect({ exitCode: child.exitCode, signalCode: child.signalCode }).toEqual({ exitCode: null, signalCode: null });
  });

  it('answers every request 200, or 503 with Retry-After while the primary is away: no 500, no hang', () => {
    const outage = drill.answers.filter((a) => a.status !== 200);
    expect(outage.length).toBeGreaterThan(0);
    expect(outage.filter((a) => a.status !== 503)).toEqual([]);
    expect(outage.filter((a) => a.retryAfter === null)).toEqual([]);
  });

  it('has every create answered 200 on the new primary', async () => {
    expect(drill.created.length).toBeGreaterThan(0);
    const found = await drill.newPrimary.selectFrom('payments').select('payment_id').where('payment_id', 'in', drill.created).execute();
    expect(new Set(found.map((row) => row.payment_id))).toEqual(new Set(drill.created));
  });

  it('delivers the notification of every paid payment at least once', () => {
    expect(drill.paid.length).toBeGreaterThan(0);
    const notified = notifiedPayments(drill.receiver);
    expect(drill.paid.filter((id) => !notified.has(id))).toEqual([]);
  });

  it('submits every charge’s debit to DemoBank, and none twice', async () => {
    expect(drill.charged.length).toBeGreaterThan(0);
    expect(await debitsInFlight(drill.newPrimary, drill.charged)).toBe(0);
    expect(await debitsSubmittedTwice(drill.newPrimary)).toBe(0);
  });
});
