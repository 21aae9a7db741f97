// The triage record, advisories.json: each advisory the maintainers know of, with the day it was
// published (npm's bulk answer carries no date, the advisory's page does) and what will be done.
// A record the check cannot read is refused whole, naming the entry and field: a half-read record
// would report known advisories as new, or hide a breach.
import fs from 'node:fs';
import { TIME_FRAMES, timeFrameOf } from './remediation-time-frames.js';

export interface RecordedAdvisory {
  id: number;
  package: string;
  severity: string;
  published: string;
  plan: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function isDay(text: string): boolean {
  const time = Date.parse(`${text}T00:00:00Z`);
  // Date.parse rolls 2026-02-30 over to March: the day must come back as written.
  return DAY.test(text) && !Number.isNaN(time) && new Date(time).toISOString().startsWith(text);
}

export function readRecord(file: string): RecordedAdvisory[] {
  let text: string;
  let parsed: unknown;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`the triage record cannot be read: ${(error as Error).message}`);
  }
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${file}: expected an array of advisories ([] when none)`);
  const seen = new Set<number>();
  return parsed.map((entry: unknown, index) => {
    const at = `${file}: entry ${index + 1}`;
    if (typeof entry !== 'object' || entry === null) throw new Error(`${at}: expected an object`);
    const { id, package: name, severity, published, plan } = entry as Record<string, unknown>;
    if (!Number.isInteger(id)) throw new Error(`${at}: "id" must be the advisory's number (npm audit's "source")`);
    if (seen.has(id as number)) throw new Error(`${at}: advisory ${id} is recorded twice`);
    seen.add(id as number);
    if (typeof name !== 'string' || !name) throw new Error(`${at}: "package" must name the package`);
    if (typeof severity !== 'string' || !timeFrameOf(severity))
      throw new Error(`${at}: "severity" must be one of ${TIME_FRAMES.map((frame) => frame.severity).join(', ')}`);
    if (typeof published !== 'string' || !isDay(published)) throw new Error(`${at}: "published" must be the day the advisory was published, YYYY-MM-DD`);
    if (typeof plan !== 'string' || !plan.trim()) throw new Error(`${at}: "plan" must say what will be done`);
    return { id: id as number, package: name, severity, published, plan };
  });
}
