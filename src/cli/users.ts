// `quipu users add|list|set-role|reset-password|two-factor-enrol|two-factor-reset`: the people who
// sign in to an account's dashboard, their roles (domain/dashboard-roles.ts) and second factors.
// Passwords and second-factor secrets are generated and printed once; only hashes (or, for the
// TOTP secret, a sealed copy) are kept.
import { Command } from 'commander';
import { addDashboardUser } from '../app/add-dashboard-user.js';
import { changeDashboardRole } from '../app/change-dashboard-role.js';
import { listDashboardUsers } from '../app/dashboard-user-list.js';
import { enrolTwoFactor, resetTwoFactor } from '../app/two-factor-enrolment.js';
import { resetDashboardPassword } from '../app/reset-dashboard-password.js';
import { printHuman } from './merchant-view.js';
import { DASHBOARD_ROLES, type DashboardRole } from '../domain/dashboard-roles.js';
import { oneOf, receiverId } from './options.js';
import { withRuntime } from './runtime.js';

const output = (value: Record<string, unknown>, json: boolean) => (json ? console.log(JSON.stringify(value)) : printHuman(value));
const role = oneOf(DASHBOARD_ROLES);

export function usersCommand(): Command {
  const users = new Command('users').description("the people who sign in to an account's dashboard");

  users
    .command('add <receiver_id>')
    .description('give a person a dashboard sign-in to the account; prints the generated password once')
    .requiredOption('--email <email>', 'the email they sign in with')
    .option('--role <role>', `what they may do: ${DASHBOARD_ROLES.join(', ')} (owner: everything; developer: credentials, notification settings, resends, DemoBank and the clock; viewer: read only)`, role, 'owner')
    .option('--json', 'print one JSON object')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => output({ ...(await addDashboardUser(ctx, receiverId(id), { email: options.email, role: options.role })), role: options.role }, options.json === true)),
    );

  users
    .command('list <receiver_id>')
    .description("the account's dashboard users and their roles")
    .option('--json', 'print one JSON object')
    .action(async (id: string, options) => withRuntime(async (ctx) => output({ users: await listDashboardUsers(ctx, receiverId(id)) }, options.json === true)));

  users
    .command('set-role')
    .description("change a dashboard user's role; every session they have ends, so they sign in again under it")
    .argument('<email>', 'the email they sign in with')
    .argument('<role>', DASHBOARD_ROLES.join(', '), role)
    .option('--json', 'print one JSON object')
    .action(async (email: string, given: DashboardRole, options) => withRuntime(async (ctx) => output({ ...(await changeDashboardRole(ctx, email, given)) }, options.json === true)));

  users
    .command('reset-password <email>')
    .description('give a dashboard user a new generated password (printed once) and end every session they have')
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output({ ...(await resetDashboardPassword(ctx, email)) }, options.json === true)));
  users
    .command('two-factor-enrol <email>')
    .description("give a dashboard user a second factor: prints its secret, its otpauth:// address (for a QR code) and ten single-use recovery codes, once; every session they have ends")
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output({ ...(await enrolTwoFactor(ctx, email)) }, options.json === true)));

  users
    .command('two-factor-reset <email>')
    .description("remove a dashboard user's second factor and recovery codes (a lost phone); every session they have ends")
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output(await resetTwoFactor(ctx, email), options.json === true)));
  return users;
}
