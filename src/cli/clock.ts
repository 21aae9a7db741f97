// `quipu clock show|advance`: the developer clock from the command line. The offset is written to
// the shared database, so a running server and its workers follow within INVALIDATION_POLL_MS.
import { Command } from 'commander';
import { moveClock } from '../app/developer-clock.js';
import { DomainError } from '../domain/errors.js';
import { withRuntime } from './runtime.js';

export function clockCommand(): Command {
  const clock = new Command('clock').description('the developer clock (moves only forward; SANDBOX must be on)');

  clock
    .command('show')
    .description('print the developer clock (ISO 8601)')
    .action(async () => withRuntime(async (ctx) => console.log(ctx.clock.now().toISOString())));

  clock
    .command('advance <duration>')
    .description('move the developer clock forward, e.g. 90s, 5m, 3h, 2d, 1d12h; prints the new time')
    .action(async (duration: string) =>
      withRuntime(async (ctx) => {
        if (!ctx.config.sandbox) throw new DomainError('forbidden', 'the developer clock is off on this installation (SANDBOX=false)');
        console.log((await moveClock(ctx, { advance: duration })).toISOString());
      }),
    );
  return clock;
}
