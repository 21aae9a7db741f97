import { describe, expect, it } from 'vitest';
import { storageFailureOf } from '../../src/store/storage-failure.js';

describe('storageFailureOf', () => {
  it.each([
    [{ code: 'SQLITE_FULL', message: 'database or disk is full' }, 'disk full'],
    [{ code: '53100', message: 'could not extend file: No space left on device' }, 'disk full'],
    [{ code: 'SQLITE_IOERR_WRITE' }, 'database unavailable'],
    [{ code: 'SQLITE_BUSY', message: 'database is locked' }, 'database unavailable'],
    [{ code: '57P01', message: 'terminating connection due to administrator command' }, 'database unavailable'],
    [{ code: '08006' }, 'database unavailable'],
    [{ code: '08001', message: 'no host of DATABASE_URL takes writes' }, 'database unavailable'],
    [{ code: '25006', message: 'cannot execute INSERT in a read-only transaction' }, 'database unavailable'],
    [{ code: 'ECONNREFUSED' }, 'database unavailable'],
    [{ message: 'Connection terminated unexpectedly' }, 'database unavailable'],
    [{ message: 'database "x" is not currently accepting connections' }, 'database unavailable'],
    [Object.assign(new AggregateError([{ code: 'ECONNREFUSED' }, { code: 'ECONNREFUSED' }]), {}), 'database unavailable'],
  ])('%o is "%s"', (error, failure) => {
    expect(storageFailureOf(error)).toBe(failure);
  });

  it.each([{ code: '23505' }, { code: 'SQLITE_CONSTRAINT_UNIQUE' }, new Error('boom'), undefined, null])('%o is no storage failure', (error) => {
    expect(storageFailureOf(error)).toBeUndefined();
  });
});
