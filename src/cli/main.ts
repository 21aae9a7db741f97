// The `quipu` command line.
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { startRuntime } from '../runtime/bootstrap.js';
import { createLogger } from '../runtime/logger.js';
import { clockCommand } from './clock.js';
import { emailsCommand } from './emails.js';
import { eventsCommand } from './events.js';
import { jobsCommand } from './jobs.js';
import { keysCommand } from './keys.js';
import { listenCommand } from './listen.js';
import { merchantsCommand } from './merchants.js';
import { notificationsCommand } from './notifications.js';
import { demoBankCommand } from './demobank.js';
import { paymentsCommand } from './payments.js';
import { creditsCommand, reconcileCommand } from './reconcile.js';
import { subscriptionsCommand } from './subscriptions.js';

// serve and worker load the HTTP server and delivery worker, which the one-shot commands never
// need: importing them lazily keeps every other command's start-up short.
export async function main(argv: string[]): Promise<void> {
  // `quipu merchants list | head` closes the pipe early: that ends the command, it is not a crash.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const program = new Command('quipu').description('Quipu: a self-hostable instant bank-transfer payment service').showHelpAfterError();
  program
    .command('serve')
    .description('start the HTTP server (migrates the database first)')
    .action(async () => (await import('./serve.js')).serve());
  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const config = loadConfig();
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
  program.addCommand(demoBankCommand());
  program.addCommand(jobsCommand());
  await program.parseAsync(argv);
}
