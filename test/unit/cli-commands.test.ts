// Which commands `quipu` loads before it parses its arguments (src/cli/commands.ts): a command's
// start-up costs only its own modules.
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor } from '../../src/cli/commands.js';

const BUILT_IN = ['serve', 'migrate', 'worker'];
const argv = (...args: string[]) => ['node', 'quipu', ...args];

describe('commandsFor', () => {
  it('loads none for serve, worker, migrate and --version', async () => {
    for (const named of [...BUILT_IN, '--version', '-V']) expect(await commandsFor(argv(named, '--flag'), BUILT_IN), named).toEqual([]);
  });

  it('loads the one a command names', async () => {
    expect((await commandsFor(argv('merchants', 'list'), BUILT_IN)).map((command) => command.name())).toEqual(['merchants']);
  });

  it('loads every one for help and for a name it does not know, so that help lists them all', async () => {
    for (const args of [[], ['--help'], ['nonsense']])
      expect((await commandsFor(argv(...args), BUILT_IN)).map((command) => command.name())).toEqual(Object.keys(COMMANDS));
  });
});
