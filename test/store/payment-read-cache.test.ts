// findPaymentToRead, what GET /v3/payments/{id} reads with: on SQLite a payment read again is
// answered from memory, but only while no commit has happened since, from this process or another
// connection (another process: the CLI, a worker). Every read must see every committed change.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ExpressionBuilder } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPayment } from '../../src/app/create-payment.js';
import { deletePayment } from '../../src/app/delete-payment.js';
import { openDatabase } from '../../src/store/database.js';
import { findPaymentToRead } from '../../src/store/payments.js';
import type { DB } from '../../src/store/schema.js';
import { inTransaction } from '../../src/store/transaction.js';
import { testDatabaseKind } from '../helpers/database.js';
import { payByTransfer } from '../helpers/payments.js';
import { useTestServer } from '../helpers/server.js';

const setup = useTestServer();

const newPayment = async () =>
  (await createPayment(setup.server.ctx, setup.account.merchant, 'v3', { amount: 1000, currency: 'CLP', subject: 'Read cache' }, [])).paymentId;
const read = (paymentId: string, receiverId = setup.account.receiver_id) => findPaymentToRead(setup.server.ctx.db, receiverId, paymentId);
// A change as every writer makes it: one version on (updatePayment, HeldPayments).
const changed = (subject: string) => (eb: ExpressionBuilder<DB, 'payments'>) => ({ subject, version: eb('version', '+', 1) });

describe('findPaymentToRead', () => {
  it.runIf(testDatabaseKind() === 'sqlite')('answers a payment read again, unchanged, from memory', async () => {
    const id = await newPayment();
    const first = await read(id);
    expect(first).toMatchObject({ paymentId: id, status: 'pending' });
    expect(Object.isFrozen(first)).toBe(true);
    expect(await read(id)).toBe(first);
  });

  it("sees this process's commits", async () => {
    const id = await newPayment();
    expect((await read(id))?.status).toBe('pending');
    await payByTransfer(setup.server.ctx, setup.account.merchant, id);
    expect(await read(id)).toMatchObject({ status: 'done', bankId: 'Bawdf' });
    const deleted = await newPayment();
    expect(await read(deleted)).toBeDefined();
    await deletePayment(setup.server.ctx, setup.account.merchant, deleted);
    expect(await read(deleted)).toBeUndefined();
  });

  it('sees commits of another connection, as another process makes them', async () => {
    const id = await newPayment();
    expect((await read(id))?.subject).toBe('Read cache');
    const other = openDatabase(setup.server.database.url);
    try {
      await other.db.updateTable('payments').set(changed('Changed elsewhere')).where('payment_id', '=', id).execute();
      expect((await read(id))?.subject).toBe('Changed elsewhere');
      await other.db.updateTable('payments').set(changed('Changed again')).where('payment_id', '=', id).execute();
      expect((await read(id))?.subject).toBe('Changed again');
    } finally {
      await other.close();
    }
  });

  it.runIf(testDatabaseKind() === 'sqlite')('sees the commit of another process, also once the WAL has started over', async () => {
    const id = await newPayment();
    expect((await read(id))?.subject).toBe('Read cache');
    const file = setup.server.database.url.slice('sqlite:'.length);
    // A process of its own, as the CLI or a worker is: it empties and truncates the WAL first, so
    // its commit is written where earlier ones were.
    const script = `const db = new (require('better-sqlite3'))(process.argv[1]); db.pragma('busy_timeout = 5000'); db.pragma('wal_checkpoint(TRUNCATE)'); db.prepare('update payments set subject = ?, version = version + 1 where payment_id = ?').run('From another process', process.argv[2]); db.close();`;
    await promisify(execFile)(process.execPath, ['-e', script, file, id], { cwd: process.cwd() });
    expect((await read(id))?.subject).toBe('From another process');
  });

  it.runIf(testDatabaseKind() === 'sqlite')('compares with the mark taken at the end of the turn, after every read of the turn was asked', async () => {
    const id = await newPayment();
    expect((await read(id))?.subject).toBe('Read cache');
    const other = openDatabase(setup.server.database.url);
    try {
      const reads = [read(id), read(id)];
      // Committed elsewhere after both reads were asked, before the turn ends.
      await other.db.updateTable('payments').set(changed('Later in the turn')).where('payment_id', '=', id).execute();
      expect((await Promise.all(reads)).map((p) => p?.subject)).toEqual(['Later in the turn', 'Later in the turn']);
    } finally {
      await other.close();
    }
  });

  // SQLite has one connection per process: a read meanwhile would see the transaction's work.
  it.runIf(testDatabaseKind() === 'sqlite')('waits for a transaction open on the connection and answers with what it committed', async () => {
    const id = await newPayment();
    expect((await read(id))?.subject).toBe('Read cache');
    let reading: Promise<unknown> | undefined;
    await inTransaction(setup.server.ctx.db, async (trx) => {
      await trx.updateTable('payments').set(changed('Committed')).where('payment_id', '=', id).execute();
      reading = read(id);
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    expect(await reading).toMatchObject({ subject: 'Committed' });
    expect((await read(id))?.subject).toBe('Committed');
  });

  it('answers a payment read again at the same version, after others committed, with the object it already handed out', async () => {
    const id = await newPayment();
    const first = await read(id);
    await newPayment();
    expect(await read(id)).toBe(first);
    const other = openDatabase(setup.server.database.url);
    try {
      await other.db.updateTable('payments').set(changed('A new version')).where('payment_id', '=', id).execute();
      const next = await read(id);
      expect(next).not.toBe(first);
      expect(next).toMatchObject({ subject: 'A new version', version: first!.version + 1 });
      expect(Object.isFrozen(next)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it("does not answer with another account's payment it holds", async () => {
    const id = await newPayment();
    expect(await read(id)).toBeDefined();
    const other = await setup.server.account();
    expect(await read(id, other.receiver_id)).toBeUndefined();
  });
});
