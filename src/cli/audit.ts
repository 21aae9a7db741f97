// `quipu audit verify|export`: checks the audit log's hash chain from where the last prune cut it
// (or its first record) to its head, and writes records as JSON lines (all, or one account's) for
// an auditor or a SIEM.
import { Command } from 'commander';
import { auditTrail, verifyAudit } from '../app/audit.js';
import { receiverId } from './options.js';
import { withRuntime } from './runtime.js';

export function auditCommand(): Command {
  const audit = new Command('audit').description('the audit log of security-relevant and money-moving actions');

  audit
    .command('verify')
    .description('check that no record was edited or removed (exit 1 naming the first that was)')
    .action(async () =>
      withRuntime(async (ctx) => {
        const { records, prunedBefore, fault } = await verifyAudit(ctx);
        const pruned = prunedBefore === undefined ? '' : ` (records dated before ${new Date(prunedBefore).toISOString()} pruned)`;
        if (!fault) return console.log(`audit log: ${records} records, chain intact${pruned}`);
        console.error(`quipu: audit log broken at record ${fault.seq}: ${fault.problem} (${records} records before it are intact)`);
        process.exitCode = 1;
      }),
    );

  audit
    .command('export')
    .description('every record as a JSON line, oldest first')
    .option('--receiver <receiver_id>', "only one account's records", receiverId)
    .action(async (options: { receiver?: number }) =>
      withRuntime(async (ctx) => {
        for await (const record of auditTrail(ctx, options.receiver)) process.stdout.write(`${JSON.stringify(record)}\n`);
      }),
    );
  return audit;
}
