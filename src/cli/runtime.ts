// Runs one CLI command against the configured database, reporting failures as one clear line.
import type { AppContext } from '../app/context.js';
import { loadConfig } from '../config.js';
import { DomainError } from '../domain/errors.js';
import { startRuntime } from '../runtime/bootstrap.js';
import { createLogger } from '../runtime/logger.js';

export async function withRuntime(work: (ctx: AppContext) => Promise<void>): Promise<void> {
  const config = loadConfig();
  const runtime = await startRuntime(config, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2));
  try {
    await work(runtime.ctx);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const detail = error.fields.map((f) => `\n  ${f.field}: ${f.message}`).join('');
    console.error(`quipu: ${error.message}${detail}`);
    process.exitCode = 2;
  } finally {
    await runtime.close();
  }
}
