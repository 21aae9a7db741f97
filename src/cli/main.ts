// The `quipu` command line.
import fs from 'node:fs';
import { Command } from 'commander';
import { startRuntime } from '../main/bootstrap.js';
import { createLogger } from '../runtime/logger.js';
import { auditCommand } from './audit.js';
import { noteCommand } from './audited-commands.js';
import { clockCommand } from './clock.js';
import { emailsCommand } from './emails.js';
import { eventsCommand } from './events.js';
import { jobsCommand } from './jobs.js';
import { keysCommand } from './keys.js';
import { listenCommand } from './listen.js';
import { merchantsCommand } from './merchants.js';
import { notificationsCommand } from './notifications.js';
import { demoBankCommand } from './demobank.js';
import { descriptorsCommand } from './descriptors.js';
import { paymentsCommand } from './payments.js';
import { creditsCommand, reconcileCommand } from './reconcile.js';
import { databaseFailure } from './database-choice.js';
import { commandConfig } from './runtime.js';
import { scenariosCommand } from './scenarios.js';
import { subscriptionsCommand } from './subscriptions.js';
import { usersCommand } from './users.js';

// serve and worker load the HTTP server and delivery worker, which the one-shot commands never
// need: importing them lazily keeps every other command's start-up short.
export async function main(argv: string[]): Promise<void> {
  // `quipu merchants list | head` closes the pipe early: that ends the command, it is not a crash.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const program = new Command('quipu').description('Quipu: a self-hostable instant bank-transfer payment service').version(version).showHelpAfterError();
  program.hook('preAction', noteCommand);
  program
    .command('serve')
    .description('start the HTTP server (migrates the database first)')
    .action(async () => (await import('./serve.js')).serve());
  program
    .command('migrate')
    .description('apply pending database migrations (creating the database if there is none)')
    .action(async () => {
      const config = commandConfig({ createDatabase: true });
      if (!config) return;
      const runtime = await startRuntime(config, createLogger('info', 2));
      await runtime.close();
      console.log('database is up to date');
    });
  program
    .command('worker')
    .description('run a notification delivery worker and the background jobs (several may share one PostgreSQL database)')
    .action(async () => (await import('./worker.js')).worker());
  program.addCommand(merchantsCommand());
  program.addCommand(notificationsCommand());
  program.addCommand(emailsCommand());
  program.addCommand(eventsCommand());
  program.addCommand(listenCommand());
  program.addCommand(clockCommand());
  program.addCommand(keysCommand());
  program.addCommand(reconcileCommand());
  program.addCommand(creditsCommand());
  program.addCommand(paymentsCommand());
  program.addCommand(subscriptionsCommand());
  program.addCommand(descriptorsCommand());
  program.addCommand(demoBankCommand());
  program.addCommand(scenariosCommand());
  program.addCommand(jobsCommand());
  program.addCommand(usersCommand());
  program.addCommand(auditCommand());
  try {
    await program.parseAsync(argv);
  } catch (error) {
    // Said in one line under the database's name, which every command prints first.
    const reason = databaseFailure(error);
    if (!reason) throw error;
    console.error(`quipu: ${reason}`);
    process.exitCode = 2;
  }
}
