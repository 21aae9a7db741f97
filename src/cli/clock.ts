// `quipu clock show|advance|reset`: the developer clock from the command line. The offset is
// written to the shared database, so a running server and its workers follow within
// INVALIDATION_POLL_MS.
import { Command } from 'commander';
import { moveClock, resetClock } from '../app/developer-clock.js';
import type { AppContext } from '../app/context.js';
import { DomainError } from '../domain/errors.js';
import { formatOffset } from '../domain/duration.js';
import type { ShiftableClock } from '../runtime/clock.js';
import { withRuntime } from './runtime.js';

/** `+2d 3h (developer clock 2026-…)`: the offset from real time first, the time it makes second. */
export const describeClock = (clock: ShiftableClock) => `${formatOffset(clock.offsetMs)} (developer clock ${clock.now().toISOString()})`;

function refuseClosedSandbox(ctx: AppContext): void {
  if (!ctx.config.sandbox) throw new DomainError('forbidden', 'the developer clock is off on this installation (SANDBOX=false)');
}

export function clockCommand(): Command {
  const clock = new Command('clock').description('the developer clock (moves forward, or back to real time; SANDBOX must be on)');

  clock
    .command('show')
    .description('print the offset from real time and the developer clock (ISO 8601)')
    .action(async () => withRuntime(async (ctx) => console.log(describeClock(ctx.clocks))));

  clock
    .command('advance <duration>')
    .description('move the developer clock forward, e.g. 90s, 5m, 3h, 2d, 1d12h; prints the new time')
    .action(async (duration: string) =>
      withRuntime(async (ctx) => {
        refuseClosedSandbox(ctx);
        console.log((await moveClock(ctx, { advance: duration })).toISOString());
      }),
    );

  clock
    .command('reset')
    .description('bring the developer clock back to real time (jobs and deliveries due later come back with it); prints the time')
    .action(async () =>
      withRuntime(async (ctx) => {
        refuseClosedSandbox(ctx);
        console.log((await resetClock(ctx)).toISOString());
      }),
    );
  return clock;
}
