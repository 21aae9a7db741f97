// The first start on a new database, as a newcomer (or a CI script) sees it: whoever waits for
// /healthz and then reads the output finds the demo account's credentials already printed, in
// words that are true: printed at that first start, and at no later one.
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { freePort, startServerProcess, waitForHttp } from '../helpers/process.js';

const API_KEY_LINE = /^ {2}api_key {6}[0-9a-f-]{36}$/m;

describe('the first start on a new database', { timeout: 180_000 }, () => {
  it('prints the demo account before /healthz first answers, and a later start prints none', async () => {
    const fresh = await createTestDatabase();
    const env = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, LOG_LEVEL: 'info' };
    try {
      const port = await freePort();
      const first = startServerProcess({ ...env, PORT: String(port) });
      try {
        // Asked every 5 ms: what the process had printed when the first 200 came.
        await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, 5);
        const printed = first.output();
        expect(printed).toMatch(API_KEY_LINE);
        expect(printed).toContain('Quipu created a developer-mode demo account in the new database (printed at its first start only):');
        const logged = await first.waitFor('quipu is listening');
        expect(logged.indexOf('api_key')).toBeLessThan(logged.indexOf('Server listening at'));
      } finally {
        await first.stop();
      }

      const later = startServerProcess({ ...env, PORT: String(await freePort()) });
      try {
        await later.waitFor('quipu is listening', 60_000);
        expect(later.output()).not.toMatch(/demo account|api_key/);
      } finally {
        await later.stop();
      }
    } finally {
      await fresh.drop();
    }
  });
});
