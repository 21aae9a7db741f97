// THE table of `quipu`'s commands besides serve, worker and migrate, in the order help lists them.
// Each is loaded only when it runs: a command's start-up then costs only the modules it uses, where
// importing every command up front loaded the whole service for `quipu --version` (help loads all).
import type { Command } from 'commander';

export const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  merchants: async () => (await import('./merchants.js')).merchantsCommand(),
  notifications: async () => (await import('./notifications.js')).notificationsCommand(),
  emails: async () => (await import('./emails.js')).emailsCommand(),
  events: async () => (await import('./events.js')).eventsCommand(),
  listen: async () => (await import('./listen.js')).listenCommand(),
  clock: async () => (await import('./clock.js')).clockCommand(),
  keys: async () => (await import('./keys.js')).keysCommand(),
  reconcile: async () => (await import('./reconcile.js')).reconcileCommand(),
  credits: async () => (await import('./reconcile.js')).creditsCommand(),
  payments: async () => (await import('./payments.js')).paymentsCommand(),
  subscriptions: async () => (await import('./subscriptions.js')).subscriptionsCommand(),
  descriptors: async () => (await import('./descriptors.js')).descriptorsCommand(),
  demobank: async () => (await import('./demobank.js')).demoBankCommand(),
  scenarios: async () => (await import('./scenarios.js')).scenariosCommand(),
  sandbox: async () => (await import('./sandbox.js')).sandboxCommand(),
  jobs: async () => (await import('./jobs.js')).jobsCommand(),
  users: async () => (await import('./users.js')).usersCommand(),
  audit: async () => (await import('./audit.js')).auditCommand(),
};

/**
 * The commands `argv` may run: the one it names, none to print the version or to run one of
 * `builtIn` (serve, worker, migrate: `quipu serve` loaded every other command's modules before it
 * started), or every one (for help, or to say a name is unknown).
 */
export async function commandsFor(argv: readonly string[], builtIn: readonly string[]): Promise<Command[]> {
  const named = argv[2];
  if (named === '--version' || named === '-V' || (named !== undefined && builtIn.includes(named))) return [];
  const names = named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : Object.keys(COMMANDS);
  return Promise.all(names.map((name) => COMMANDS[name]!()));
}
