// `npm run check:components`: fails while the application contains a component whose advisory is
// not triaged in advisories.json or has outlived its remediation time frame (docs/operations.md,
// "Third-party components"; ASVS 15.2.1). Exit 0: every advisory recorded and within its frame;
// 1: a new or breached advisory; 2: bad arguments or record; 3: the advisory service could not be
// asked (0 with --unchecked=warn, for pipelines whose registry offers none).
//   node --import tsx scripts/check-components.ts [--record <file>] [--registry <url>] [--today YYYY-MM-DD] [--unchecked=warn]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isDay, readRecord, type RecordedAdvisory } from './advisory-record.js';
import { auditProductionComponents, type Advisory } from './npm-advisories.js';
import { dueDate, timeFrameOf } from './remediation-time-frames.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'usage: npm run check:components -- [--record <file>] [--registry <url>] [--today YYYY-MM-DD] [--unchecked=warn]';

const localDay = (now: Date) => [now.getFullYear(), now.getMonth() + 1, now.getDate()].map((part) => String(part).padStart(2, '0')).join('-');

function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { record: { type: 'string' }, registry: { type: 'string' }, today: { type: 'string' }, unchecked: { type: 'string' } },
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.unchecked !== undefined && values.unchecked !== 'warn') throw new Error(`--unchecked takes only "warn"\n${USAGE}`);
  if (values.today !== undefined && !isDay(values.today)) throw new Error(`--today must be a day, YYYY-MM-DD\n${USAGE}`);
  return {
    record: values.record ?? path.relative(process.cwd(), path.join(ROOT, 'advisories.json')),
    registry: values.registry,
    // The machine's calendar day: the frames count the maintainers' days, not an account's clock.
    today: values.today ?? localDay(new Date()),
    warnUnchecked: values.unchecked === 'warn',
  };
}

/** The advisory's line, and whether it breaks its time frame. */
function judge(advisory: Advisory, known: RecordedAdvisory, today: string): { line: string; breached: boolean } {
  const frame = timeFrameOf(advisory.severity);
  if (!frame) throw new Error(`npm audit reports advisory ${advisory.id} as ${advisory.severity}, a severity docs/operations.md gives no time frame`);
  const due = dueDate(known.published, frame.days);
  const breached = today > due;
  const regraded = known.severity === advisory.severity ? '' : `; recorded as ${known.severity}: update the record`;
  return {
    line: `advisory ${advisory.id} ${advisory.severity} in ${advisory.package}: ${advisory.title}; published ${known.published}, due ${due} (${frame.days} days for ${frame.documented}): ${breached ? 'breached' : 'within its time frame'}; plan: ${known.plan}${regraded}`,
    breached,
  };
}

function check(): number {
  const { record, registry, today, warnUnchecked } = options();
  const recorded = readRecord(record);
  const audit = auditProductionComponents(ROOT, registry);
  if (!audit.checked) {
    console.log(`components not checked: ${audit.reason}`);
    return warnUnchecked ? 0 : 3;
  }
  let failed = false;
  for (const advisory of audit.advisories) {
    const known = recorded.find((entry) => entry.id === advisory.id);
    if (!known) {
      console.log(
        `new advisory ${advisory.id} ${advisory.severity} in ${advisory.package}: ${advisory.title} ${advisory.url}; record it in ${record} with the day it was published and the plan`,
      );
      failed = true;
      continue;
    }
    const { line, breached } = judge(advisory, known, today);
    console.log(line);
    failed ||= breached;
  }
  for (const known of recorded)
    if (!audit.advisories.some((advisory) => advisory.id === known.id))
      console.log(`advisory ${known.id} in ${known.package} is gone: npm audit no longer reports it; remove it from ${record}`);
  if (audit.advisories.length === 0) console.log('components checked: npm audit reports no advisory for the production components');
  return failed ? 1 : 0;
}

try {
  process.exitCode = check();
} catch (error) {
  console.error(`check:components: ${(error as Error).message}`);
  process.exitCode = 2;
}
