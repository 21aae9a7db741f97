// The commands that change state, which the audit log records with who ran them (the system user),
// their arguments and how they ended. Commands that only read are left out. A new command that
// changes state is a new row.
import os from 'node:os';
import type { Command } from 'commander';

export const STATE_CHANGING_COMMANDS: ReadonlySet<string> = new Set([
  'clock advance',
  'clock reset',
  'demobank mandates approve',
  'demobank mandates reject',
  'demobank mandates revoke',
  'demobank charges settle',
  'demobank charges fail',
  'demobank confirm',
  'demobank fail',
  'events resend',
  'notifications resend',
  'keys rotate',
  'keys reseal',
  'merchants create',
  'merchants update',
  'merchants revoke-tokens',
  'payments mark-paid',
  'payments pay',
  'reconcile',
  'sandbox create',
  'scenarios run',
  'users add',
  'users set-role',
  'users reset-password',
  'users two-factor-enrol',
  'users two-factor-reset',
  'users disable',
  'users enable',
  'users remove',
  'users end-sessions',
]);

export interface RunningCommand {
  name: string;
  /** Its positional arguments (ids, emails, durations, a file's path): never an option's value. */
  args: string;
  user: string;
}

let running: RunningCommand | undefined;

/** A preAction hook of the program: notes the command about to run, if it changes state. */
export function noteCommand(_program: Command, action: Command): void {
  const names: string[] = [];
  for (let command: Command | null = action; command?.parent; command = command.parent) names.unshift(command.name());
  const name = names.join(' ');
  running = STATE_CHANGING_COMMANDS.has(name) ? { name, args: action.args.join(' '), user: os.userInfo().username } : undefined;
}

/** The state-changing command running in this process, if any. */
export const runningCommand = (): RunningCommand | undefined => running;
