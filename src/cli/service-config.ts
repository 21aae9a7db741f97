// The configuration of the long-running commands (`quipu serve`, `quipu worker`): they refuse to
// start, with one line naming every missing setting (and every secret given as an environment
// variable instead of a file), where a production installation would be unsafe. One-shot commands
// load the configuration without this rule, so an operator can still migrate or inspect a database
// while putting the settings in place.
import type { Logger } from 'pino';
import type { AppContext } from '../app/context.js';
import { type Config, ConfigError, loadConfig, productionProblems, secretsInEnvironment } from '../config.js';
import { mailSignInProblems } from '../delivery/mail-sign-in.js';
import { type Runtime, startRuntime } from '../main/bootstrap.js';
import { databaseSignInProblems } from '../store/postgres-sign-in.js';
import { databaseTransportProblems } from '../store/postgres-tls.js';

/** The configuration, or undefined (the reason on stderr, a failing exit code) when the service must not start. */
export function loadServiceConfig(): Config | undefined {
  try {
    const config = loadConfig();
    const problems = [
      ...productionProblems(config),
      ...secretsInEnvironment(config, process.env),
      ...databaseTransportProblems(config, process.env),
      ...mailSignInProblems(config),
    ];
    if (problems.length === 0) return config;
    return refuse(`SANDBOX=false needs ${problems.join('; ')}`);
  } catch (error) {
    if (error instanceof ConfigError) return refuse(error.message);
    throw error;
  }
}

function refuse(reason: string): undefined {
  console.error(`quipu: refusing to start: ${reason}`);
  process.exitCode = 2;
  return undefined;
}

/** What keeps a part of a process from working, one phrase each; none when it may start. */
export type StartCheck = (ctx: AppContext) => Promise<string[]>;

/**
 * The runtime of a long-running command, or undefined (the reason on stderr, a failing exit code)
 * when a production installation signs in to its database with an unchanging password, or `check`
 * finds a part the command runs broken: said at start, not at the first request that needs it.
 * Each command checks only what it runs.
 */
export async function startService(config: Config, log: Logger, check?: StartCheck): Promise<Runtime | undefined> {
  const runtime = await startRuntime(config, log, { longRunning: true });
  const problems = [...(await databaseSignInProblems(runtime.ctx.db, config, process.env)), ...(check ? await check(runtime.ctx) : [])];
  if (problems.length === 0) return runtime;
  await runtime.close();
  return refuse(problems.join('; '));
}
