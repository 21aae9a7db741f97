// `quipu keys rotate|list`: the keys that sign OAuth tokens, and with --descriptors those that seal
// operation descriptors. Rotation takes effect in running servers within INVALIDATION_POLL_MS;
// tokens signed and descriptors sealed by the previous keys stay valid until they expire.
// `quipu keys reseal`: every stored secret sealed anew with the current QUIPU_ENCRYPTION_KEY.
import { Command } from 'commander';
import { resealSecrets } from '../app/reseal-secrets.js';
import { DomainError } from '../domain/errors.js';
import { rotateKeys } from '../app/rotate-keys.js';
import { keyRetentionCutoff } from '../app/token-keys.js';
import { OAUTH_KEYS } from '../store/sealed-keys.js';
import { withRuntime } from './runtime.js';
import { printTable } from './table.js';

export function keysCommand(): Command {
  const keys = new Command('keys').description('the keys that sign OAuth tokens and seal stored secrets');

  keys
    .command('rotate')
    .description('sign new tokens with a new key; tokens signed by previous keys stay valid until they expire')
    .option('--descriptors', 'rotate the operation descriptor keys instead: descriptors sealed by previous keys open until they expire')
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const rotation = options.descriptors ? await ctx.descriptorKeys.rotate() : await rotateKeys(ctx);
        if (options.json) console.log(JSON.stringify(rotation));
        else
          console.log(
            `${options.descriptors ? 'descriptor' : 'signing'} key ${rotation.kid}${rotation.retired.length > 0 ? ` (previous: ${rotation.retired.join(', ')})` : ''}`,
          );
      }),
    );

  keys
    .command('reseal')
    .description('seal every stored secret with the current QUIPU_ENCRYPTION_KEY, after which QUIPU_ENCRYPTION_KEY_PREVIOUS can go')
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const reseal = await resealSecrets(ctx);
        if (options.json) console.log(JSON.stringify(reseal));
        else
          for (const c of reseal.columns)
            console.log(
              `${c.column}  resealed ${c.resealed}${c.left > 0 ? `, ${c.left} left under another key (${c.unopenable} open with no key of the ring)` : ''}`,
            );
        const left = reseal.columns.reduce((sum, c) => sum + c.left, 0);
        if (left > 0)
          throw new DomainError('state', `stored secrets not sealed with key ${reseal.keyId}: ${left}; keep QUIPU_ENCRYPTION_KEY_PREVIOUS and run it again`);
        if (!options.json) console.log(`every stored secret is sealed with key ${reseal.keyId}`);
      }),
    );

  keys
    .command('list')
    .description('list the keys the JWKS publishes, newest first')
    .option('--json', 'print JSON')
    .action(async (options) =>
      withRuntime(async (ctx) => {
        const rows = await OAUTH_KEYS.live(ctx.db, keyRetentionCutoff(ctx.clock.now()));
        const view = rows.map((r) => ({
          kid: r.kid,
          alg: r.alg,
          created_at: new Date(r.created_at).toISOString(),
          retired_at: r.retired_at === null ? null : new Date(r.retired_at).toISOString(),
        }));
        if (options.json) return console.log(JSON.stringify(view));
        printTable(
          [
            { header: 'KID', value: (k) => k.kid },
            { header: 'ALG', value: (k) => k.alg },
            { header: 'CREATED', value: (k) => k.created_at },
            { header: 'STATE', value: (k) => (k.retired_at ? `retired ${k.retired_at}` : 'signing') },
          ],
          view,
        );
      }),
    );
  return keys;
}
