// `quipu users add|reset-password`: the people who sign in to an account's dashboard. Passwords are
// generated and printed once; only their hashes are kept.
import { Command } from 'commander';
import { addDashboardUser } from '../app/add-dashboard-user.js';
import { resetDashboardPassword } from '../app/reset-dashboard-password.js';
import { printHuman } from './merchant-view.js';
import { receiverId } from './options.js';
import { withRuntime } from './runtime.js';

const output = (value: { email: string; password: string }, json: boolean) => (json ? console.log(JSON.stringify(value)) : printHuman(value));

export function usersCommand(): Command {
  const users = new Command('users').description("the people who sign in to an account's dashboard");

  users
    .command('add <receiver_id>')
    .description('give a person a dashboard sign-in to the account; prints the generated password once')
    .requiredOption('--email <email>', 'the email they sign in with')
    .option('--json', 'print one JSON object')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => output(await addDashboardUser(ctx, receiverId(id), { email: options.email }), options.json === true)),
    );

  users
    .command('reset-password <email>')
    .description('give a dashboard user a new generated password (printed once) and end every session they have')
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output(await resetDashboardPassword(ctx, email), options.json === true)));
  return users;
}
