// `quipu descriptors show <id>`: an operation descriptor decrypted (by its operation id or the
// descriptor itself), for a developer debugging what their app sent. Developer mode only: with
// SANDBOX=false it refuses, as the sandbox route does not exist there.
import { Command } from 'commander';
import { showDescriptor } from '../app/operation-queries.js';
import { forbidden } from '../domain/errors.js';
import { printHuman } from './merchant-view.js';
import { withRuntime } from './runtime.js';

export function descriptorsCommand(): Command {
  const descriptors = new Command('descriptors').description('operation descriptors (developer mode only)');

  descriptors
    .command('show <id>')
    .description("show a descriptor's decrypted content, by its operation id or the descriptor itself")
    .option('--json', 'print JSON')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        if (!ctx.config.sandbox) throw forbidden('descriptors are shown decrypted only in developer mode (SANDBOX=true)');
        const view = await showDescriptor(ctx, id);
        if (options.json) console.log(JSON.stringify(view));
        else printHuman(view);
      }),
    );
  return descriptors;
}
