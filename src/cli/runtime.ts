// Runs one CLI command against the configured database, reporting failures as one clear line.
import { audit } from '../app/audit.js';
import type { AppContext } from '../app/context.js';
import { type Config, ConfigError, loadConfig } from '../config.js';
import type { AuditOutcome } from '../domain/audit.js';
import { DomainError } from '../domain/errors.js';
import { startRuntime } from '../main/bootstrap.js';
import { createLogger } from '../runtime/logger.js';
import { runningCommand } from './audited-commands.js';
import { announceDatabase, missingDefaultDatabase } from './database-choice.js';
import { announceServer, followServer } from './public-url.js';

function fail(message: string): undefined {
  console.error(`quipu: ${message}`);
  process.exitCode = 2;
  return undefined;
}

/** The configuration of a one-shot command, named on stderr; undefined (said in one line) when the command must not run. */
export function commandConfig(options: { createDatabase?: boolean } = {}): Config | undefined {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.message);
    throw error;
  }
  announceDatabase(config);
  const missing = options.createDatabase ? undefined : missingDefaultDatabase(config);
  return missing ? fail(missing) : config;
}

/**
 * Runs the command with the running server's public base URL (public-url.ts); one that changes
 * state (audited-commands.ts) names that server and leaves an audit record of how it ended.
 */
export async function withRuntime(work: (ctx: AppContext) => Promise<void>): Promise<void> {
  const config = commandConfig();
  if (!config) return;
  const runtime = await startRuntime(config, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2));
  const command = runningCommand();
  let outcome: AuditOutcome = 'failed';
  try {
    const source = await followServer(runtime.ctx);
    if (command) announceServer(runtime.ctx, source);
    await work(runtime.ctx);
    outcome = 'ok';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    outcome = 'refused';
    const detail = error.fields.map((f) => `\n  ${f.field}: ${f.message}`).join('');
    fail(`${error.message}${detail}`);
  } finally {
    if (command)
      await audit(runtime.ctx, {
        actorKind: 'cli',
        actor: command.user,
        receiverId: null,
        action: 'cli.command',
        target: `${command.name} ${command.args}`.trim(),
        outcome,
        address: null,
      });
    await runtime.close();
  }
}
