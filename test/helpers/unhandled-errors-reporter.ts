// Decides whether errors thrown outside any test fail the run, and prints them as the last lines
// of the output, where a CI log's tail shows them.
//
// Vitest's own worker-to-runner messages time out after a fixed 60 s that no option changes
// (vitest-dev/vitest#6479, #8164); on a loaded two-core machine a worker that runs real servers,
// browsers and child processes can miss it with every test green. That one error is Vitest's
// bookkeeping, not ours: it is reported here and tolerated. Every other error outside a test
// fails the run, as Vitest would (the config sets dangerouslyIgnoreUnhandledErrors so that this
// reporter makes the call).
import type { Reporter, SerializedError } from 'vitest/node';

const VITEST_RPC_TIMEOUT = /^\[vitest-worker\]: Timeout calling "onTaskUpdate"/;

interface Located extends SerializedError {
  VITEST_TEST_PATH?: string;
  VITEST_TEST_NAME?: string;
}

export function isTolerated(error: SerializedError): boolean {
  return VITEST_RPC_TIMEOUT.test(error.message ?? '');
}

function summary(error: Located): string {
  const where = [error.VITEST_TEST_PATH, error.VITEST_TEST_NAME].filter(Boolean).join(' > ');
  return `${error.name ?? 'Error'}: ${error.message}${where ? ` (in ${where})` : ''}`;
}

export default class UnhandledErrorsReporter implements Reporter {
  async onTestRunEnd(_modules: unknown, errors: ReadonlyArray<SerializedError>): Promise<void> {
    if (errors.length === 0) return;
    // The default reporter prints its summary in the same turn: print after it.
    await new Promise((resolve) => setImmediate(resolve));
    const fatal = errors.filter((e) => !isTolerated(e));
    console.log('\nErrors outside tests:');
    for (const error of errors) console.log(`  ${isTolerated(error) ? 'tolerated' : 'FAILS RUN'}  ${summary(error)}`);
    if (fatal.length > 0) process.exitCode = 1;
  }
}
