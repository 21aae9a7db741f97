// The test run's own rule for errors outside tests: only Vitest's worker RPC timeout is tolerated.
import { afterEach, describe, expect, it, vi } from 'vitest';
import UnhandledErrorsReporter, { isTolerated } from '../helpers/unhandled-errors-reporter.js';

const error = (message: string) => ({ name: 'Error', message, stack: '' });

describe('errors outside tests', () => {
  const exitCode = process.exitCode;
  afterEach(() => {
    process.exitCode = exitCode;
    vi.restoreAllMocks();
  });

  it('tolerates only the onTaskUpdate RPC timeout', () => {
    expect(isTolerated(error('[vitest-worker]: Timeout calling "onTaskUpdate"'))).toBe(true);
    expect(isTolerated(error('[vitest-worker]: Timeout calling "fetch" with "[]"'))).toBe(false);
    expect(isTolerated(error('Connection terminated unexpectedly'))).toBe(false);
  });

  it('fails the run for any other error, and lists each one last', async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    process.exitCode = undefined;
    await new UnhandledErrorsReporter().onTestRunEnd([], [error('[vitest-worker]: Timeout calling "onTaskUpdate"')]);
    expect(process.exitCode).toBeUndefined();
    await new UnhandledErrorsReporter().onTestRunEnd([], [error('[vitest-worker]: Timeout calling "onTaskUpdate"'), error('boom')]);
    expect(process.exitCode).toBe(1);
    expect(printed.join('\n')).toContain('FAILS RUN  Error: boom');
    expect(printed.join('\n')).toContain('tolerated  Error: [vitest-worker]');
  });
});
