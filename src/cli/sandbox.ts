// `quipu sandbox create [--fixtures file.json] [--dashboard]`: a throwaway developer-mode account
// with the records it starts from, as POST /sandbox/accounts makes it (app/sandbox-accounts.ts), for
// a CI script that has the installation's database rather than its operator token. Prints the
// credentials (and each fixture's ids) as the route answers them, one JSON object.
import fs from 'node:fs';
import os from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { createSandboxAccount } from '../app/sandbox-accounts.js';
import { fieldError, validationError } from '../domain/errors.js';
import { isWebUrl } from '../domain/formats.js';
import type { SandboxFixtures } from '../domain/sandbox-fixtures.js';
import { SandboxFixturesSchema } from '../http/sandbox/fixtures-schema.js';
import { schemaProblems } from '../http/validation.js';
import { withRuntime } from './runtime.js';

/** The file's fixtures, held to the route's schema: a problem is named by its path as the route names it. */
function readFixtures(file: string): SandboxFixtures {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw fieldError('fixtures', `${file} cannot be read as JSON: ${(error as Error).message}`);
  }
  const problems = schemaProblems(SandboxFixturesSchema, value);
  if (problems.length > 0) throw validationError(problems.map((p) => ({ field: p.field === 'body' ? 'fixtures' : `fixtures.${p.field}`, message: p.message })));
  return value as SandboxFixtures;
}

function url(value: string): string {
  if (!isWebUrl(value)) throw new InvalidArgumentError(`${value} is not an http(s) URL`);
  return value;
}

export function sandboxCommand(): Command {
  const sandbox = new Command('sandbox').description('throwaway developer-mode accounts for test suites (docs/testing-in-ci.md)');
  sandbox
    .command('create')
    .description('create a developer-mode account, with fixtures if given, and print its credentials as JSON (as POST /sandbox/accounts answers)')
    .option('--fixtures <file>', 'a JSON file of fixtures (docs/sandbox-fixtures.schema.json)')
    .option('--dashboard', 'also a dashboard owner, with a generated password')
    .option('--name <name>', 'the account name (default: Sandbox account)')
    .option('--notify-url <url>', 'where its payments are notified', url)
    .option('--refunds', 'the account may refund (what reversed payment fixtures need)')
    .action(async (options: { fixtures?: string; dashboard?: boolean; name?: string; notifyUrl?: string; refunds?: boolean }) =>
      withRuntime(async (ctx) => {
        const fixtures = options.fixtures === undefined ? undefined : readFixtures(options.fixtures);
        const account = await createSandboxAccount(
          ctx,
          {
            name: options.name,
            notifyUrl: options.notifyUrl,
            dashboard: options.dashboard === true,
            refunds: options.refunds === true,
            fixtures,
          },
          { actorKind: 'cli', actor: os.userInfo().username, address: null },
        );
        console.log(JSON.stringify(account));
      }),
    );
  return sandbox;
}
