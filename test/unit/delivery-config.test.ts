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

  it('caps requests per destination at a quarter of the concurrency unless told otherwise', () => {
    expect(loadConfig({}).deliveryConcurrencyPerDestination).toBe(16);
    expect(loadConfig({ DELIVERY_CONCURRENCY: '8' }).deliveryConcurrencyPerDestination).toBe(2);
    expect(loadConfig({ DELIVERY_CONCURRENCY: '2' }).deliveryConcurrencyPerDestination).toBe(1);
    expect(loadConfig({ DELIVERY_CONCURRENCY_PER_DESTINATION: '64' }).deliveryConcurrencyPerDestination).toBe(64);
    expect(() => loadConfig({ DELIVERY_CONCURRENCY_PER_DESTINATION: '65' })).toThrow(
      new ConfigError('DELIVERY_CONCURRENCY_PER_DESTINATION must be between 1 and 64, got 65'),
    );
  });

  it('opens a demo account by default only where the sandbox is on', () => {
    expect(loadConfig({}).demoAccount).toBe(true);
    expect(loadConfig({ SANDBOX: 'false' }).demoAccount).toBe(false);
    expect(loadConfig({ SANDBOX: 'false', DEMO_ACCOUNT: 'true' }).demoAccount).toBe(true);
    expect(loadConfig({ DEMO_ACCOUNT: 'false' }).demoAccount).toBe(false);
  });

  it('names the variable of a bad value', () => {
    expect(() => loadConfig({ DELIVERY_CONCURRENCY: '0' })).toThrow(/DELIVERY_CONCURRENCY/);
    expect(() => loadConfig({ RUN_WORKER: 'maybe' })).toThrow(/RUN_WORKER/);
    expect(() => loadConfig({ SANDBOX: 'maybe' })).toThrow(/SANDBOX/);
  });
});

describe('invalidation feed setting', () => {
  it('polls every 500 ms by default and at least every 800 ms (the one-second revocation promise)', () => {
    expect(loadConfig({}).invalidationPollMs).toBe(500);
    expect(loadConfig({ INVALIDATION_POLL_MS: '800' }).invalidationPollMs).toBe(800);
    expect(loadConfig({ INVALIDATION_POLL_MS: '50' }).invalidationPollMs).toBe(50);
    expect(() => loadConfig({ INVALIDATION_POLL_MS: '801' })).toThrow(new ConfigError('INVALIDATION_POLL_MS must be between 50 and 800, got 801'));
    expect(() => loadConfig({ INVALIDATION_POLL_MS: '49' })).toThrow(/INVALIDATION_POLL_MS/);
  });
});
