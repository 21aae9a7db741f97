// `quipu users add|list|set-role|reset-password|two-factor-enrol|two-factor-reset|disable|enable|
// remove|end-sessions`: the people who sign in to an account's dashboard, their roles
// (domain/dashboard-roles.ts), second factors, access and sessions. Passwords and second-factor
// secrets are generated and printed once; only hashes (or, for the TOTP secret, a sealed copy) are
// kept. A generated password expires in 7 days and is replaced at its first sign-in.
import { Command } from 'commander';
import { addDashboardUser } from '../app/add-dashboard-user.js';
import { endDashboardSessions, removeDashboardUser, setDashboardUserDisabled } from '../app/dashboard-user-access.js';
import { changeDashboardRole } from '../app/change-dashboard-role.js';
import { listDashboardUsers } from '../app/dashboard-user-list.js';
import { enrolTwoFactor, resetTwoFactor } from '../app/two-factor-enrolment.js';
import { resetDashboardPassword } from '../app/reset-dashboard-password.js';
import { printHuman } from './merchant-view.js';
import { DASHBOARD_ROLES, type DashboardRole } from '../domain/dashboard-roles.js';
import { oneOf, receiverId } from './options.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

const output = (value: Record<string, unknown>, json: boolean) => (json ? console.log(JSON.stringify(value)) : printHuman(value));
const role = oneOf(DASHBOARD_ROLES);

export function usersCommand(): Command {
  const users = new Command('users').description("the people who sign in to an account's dashboard");

  users
    .command('add <receiver_id>')
    .description(
      'give a person a dashboard sign-in to the account; prints the generated password once (it expires in 7 days, and is replaced at the first sign-in)',
    )
    .requiredOption('--email <email>', 'the email they sign in with')
    .option(
      '--role <role>',
      `what they may do: ${DASHBOARD_ROLES.join(', ')} (owner: everything; developer: credentials, notification settings, resends, DemoBank and the clock; viewer: read only)`,
      role,
      'owner',
    )
    .option('--json', 'print one JSON object')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) =>
        output({ ...(await addDashboardUser(ctx, receiverId(id), { email: options.email, role: options.role })), role: options.role }, options.json === true),
      ),
    );

  users
    .command('list <receiver_id>')
    .description("the account's dashboard users and their roles")
    .option('--json', 'print one JSON object')
    .action(async (id: string, options) =>
      withRuntime(async (ctx) => {
        const users = await listDashboardUsers(ctx, receiverId(id));
        if (options.json) return console.log(JSON.stringify({ users }));
        printTable(
          [
            { header: 'EMAIL', value: (u) => u.email },
            { header: 'ROLE', value: (u) => u.role },
            { header: 'TWO-FACTOR', value: (u) => (u.two_factor ? 'yes' : 'no') },
            { header: 'DISABLED', value: (u) => (u.disabled ? 'yes' : 'no') },
          ],
          users,
        );
      }),
    );

  users
    .command('set-role')
    .description("change a dashboard user's role; every session they have ends, so they sign in again under it")
    .argument('<email>', 'the email they sign in with')
    .argument('<role>', DASHBOARD_ROLES.join(', '), role)
    .option('--json', 'print one JSON object')
    .action(async (email: string, given: DashboardRole, options) =>
      withRuntime(async (ctx) => output({ ...(await changeDashboardRole(ctx, email, given)) }, options.json === true)),
    );

  users
    .command('reset-password <email>')
    .description(
      'give a dashboard user a new generated password (printed once; it expires in 7 days, and is replaced at the first sign-in) and end every session they have',
    )
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output({ ...(await resetDashboardPassword(ctx, email)) }, options.json === true)));
  users
    .command('two-factor-enrol <email>')
    .description(
      'give a dashboard user a second factor: prints its secret, its otpauth:// address (for a QR code) and ten single-use recovery codes, once; every session they have ends',
    )
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output({ ...(await enrolTwoFactor(ctx, email)) }, options.json === true)));

  users
    .command('two-factor-reset <email>')
    .description("remove a dashboard user's second factor and recovery codes (a lost phone); every session they have ends")
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output(await resetTwoFactor(ctx, email), options.json === true)));

  users
    .command('disable <email>')
    .description("take a dashboard user's access away until enabled again: every session they have ends, and their sign-in is refused as a wrong password is")
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output(await setDashboardUserDisabled(ctx, email, true), options.json === true)));

  users
    .command('enable <email>')
    .description('give a disabled dashboard user their access back, with the password and second factor they had')
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output(await setDashboardUserDisabled(ctx, email, false), options.json === true)));

  users
    .command('remove <email>')
    .description('delete a dashboard user, their second factor and every session they have (the audit log keeps their email)')
    .option('--json', 'print one JSON object')
    .action(async (email: string, options) => withRuntime(async (ctx) => output(await removeDashboardUser(ctx, email), options.json === true)));

  users
    .command('end-sessions [email]')
    .description('end every session of a dashboard user, or with --all of every user; nothing else changes: they sign in again')
    .option('--all', 'every user of every account')
    .option('--json', 'print one JSON object')
    .action(async (email: string | undefined, options, command: Command) => {
      if ((email === undefined) === (options.all !== true)) command.error('error: give either an email or --all', { exitCode: 2 });
      return withRuntime(async (ctx) => output(await endDashboardSessions(ctx, email), options.json === true));
    });
  return users;
}
