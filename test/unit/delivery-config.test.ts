import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('delivery and sandbox settings', () => {
  it('defaults: worker in the server, 64 in flight, 15 s timeout, 60 s lease, sandbox on', () => {
    expect(loadConfig({})).toMatchObject({
      runWorker: true,
      deliveryConcurrency: 64,
      deliveryTimeoutMs: 15_000,
      deliveryLeaseMs: 60_000,
      deliveryPollMs: 250,
      deliveryBatchSize: 200,
      sandbox: true,
    });
  });

  it('reads overrides', () => {
    const config = loadConfig({ RUN_WORKER: 'false', SANDBOX: 'off', DELIVERY_CONCURRENCY: '8', DELIVERY_TIMEOUT_MS: '2000', DELIVERY_LEASE_MS: '4000' });
    expect(config).toMatchObject({ runWorker: false, sandbox: false, deliveryConcurrency: 8, deliveryTimeoutMs: 2_000, deliveryLeaseMs: 4_000 });
  });

  it('refuses a lease that does not cover a request and its wait for a slot', () => {
    expect(() => loadConfig({ DELIVERY_TIMEOUT_MS: '31000' })).toThrow(new ConfigError('DELIVERY_LEASE_MS must be at least twice DELIVERY_TIMEOUT_MS'));
    expect(() => loadConfig({ DELIVERY_TIMEOUT_MS: '5000', DELIVERY_LEASE_MS: '9999' })).toThrow(ConfigError);
    expect(loadConfig({ DELIVERY_TIMEOUT_MS: '5000', DELIVERY_LEASE_MS: '10000' }).deliveryLeaseMs).toBe(10_000);
  });

  it('names the variable of a bad value', () => {
    expect(() => loadConfig({ DELIVERY_CONCURRENCY: '0' })).toThrow(/DELIVERY_CONCURRENCY/);
    expect(() => loadConfig({ RUN_WORKER: 'maybe' })).toThrow(/RUN_WORKER/);
    expect(() => loadConfig({ SANDBOX: 'maybe' })).toThrow(/SANDBOX/);
  });
});

describe('invalidation feed setting', () => {
  it('polls every 500 ms by default and never less often than once a second (the revocation promise)', () => {
    expect(loadConfig({}).invalidationPollMs).toBe(500);
    expect(loadConfig({ INVALIDATION_POLL_MS: '1000' }).invalidationPollMs).toBe(1_000);
    expect(loadConfig({ INVALIDATION_POLL_MS: '50' }).invalidationPollMs).toBe(50);
    expect(() => loadConfig({ INVALIDATION_POLL_MS: '1001' })).toThrow(new ConfigError('INVALIDATION_POLL_MS must be between 50 and 1000, got 1001'));
    expect(() => loadConfig({ INVALIDATION_POLL_MS: '49' })).toThrow(/INVALIDATION_POLL_MS/);
  });
});
