// The checks of a sandbox account's fixtures as a whole, before anything is created: every problem
// named by its path in the request body.
import { describe, expect, it } from 'vitest';
import { fixtureProblems } from '../../src/domain/sandbox-fixtures.js';

describe('fixtureProblems', () => {
  it('accepts refs unique across kinds and charges on enabled subscriptions of the request', () => {
    const fixtures = {
      payments: [{ ref: 'paid', status: 'reversed' as const }],
      subscriptions: [{ ref: 'gym', status: 'enabled' as const }],
      charges: [{ ref: 'nov', subscription: 'gym', status: 'paid' as const }],
      descriptors: [{ ref: 'op' }],
    };
    expect(fixtureProblems(fixtures, { refunds: true })).toEqual([]);
    expect(fixtureProblems({}, { refunds: false })).toEqual([]);
  });

  it('names a ref used twice, in any two kinds, by the first that has it', () => {
    expect(fixtureProblems({ payments: [{ ref: 'x', status: 'done' }], descriptors: [{ ref: 'y' }, { ref: 'x' }] }, { refunds: false })).toEqual([
      { field: 'fixtures.descriptors.1.ref', message: 'is already the ref of fixtures.payments.0' },
    ]);
  });

  it('names a charge on a subscription the request does not have, or does not ask for enabled', () => {
    const fixtures = {
      subscriptions: [{ ref: 'waiting', status: 'signed' as const }],
      charges: [
        { ref: 'a', subscription: 'nowhere', status: 'due' as const },
        { ref: 'b', subscription: 'waiting', status: 'due' as const },
      ],
    };
    expect(fixtureProblems(fixtures, { refunds: false })).toEqual([
      { field: 'fixtures.charges.0.subscription', message: 'must be the ref of a subscription of fixtures.subscriptions' },
      { field: 'fixtures.charges.1.subscription', message: 'must be an enabled subscription (waiting is signed)' },
    ]);
  });

  it('names a reversed payment on an account that may not refund', () => {
    expect(
      fixtureProblems(
        {
          payments: [
            { ref: 'a', status: 'done' },
            { ref: 'b', status: 'reversed' },
          ],
        },
        { refunds: false },
      ),
    ).toEqual([{ field: 'fixtures.payments.1.status', message: 'reversed needs an account that refunds: send "refunds": true' }]);
  });
});
