// The `quipu` command line.
import fs from 'node:fs';
import { Command } from 'commander';
import { noteCommand } from './audited-commands.js';
import { commandsFor } from './commands.js';
import { databaseFailure } from './database-choice.js';

// Every command is imported when it runs, not before (commands.ts): serve and worker load the HTTP
// server and the delivery worker, the one-shot commands what each uses, `--version` nothing.
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
      const [{ commandConfig }, { startRuntime }, { createLogger }] = await Promise.all([
        import('./runtime.js'),
        import('../main/bootstrap.js'),
        import('../runtime/logger.js'),
      ]);
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
  const builtIn = program.commands.map((command) => command.name());
  for (const command of await commandsFor(argv, builtIn)) program.addCommand(command);
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
