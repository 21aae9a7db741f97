import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/helpers/build-dist.ts', './test/helpers/via-pgbouncer.ts'],
    pool: 'forks',
    // Two cores: more workers only add contention between real servers and databases.
    maxWorkers: 2,
    minWorkers: 1,
    // Many tests start real processes (quipu serve, the CLI, chromium): on two loaded cores one
    // process can take tens of seconds to start, which is no failure of what the test checks.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // The last reporter decides whether errors outside tests fail the run (see its header).
    dangerouslyIgnoreUnhandledErrors: true,
    reporters: ['default', './test/helpers/unhandled-errors-reporter.ts'],
  },
});
