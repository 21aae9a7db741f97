// `npm run bench:guard`'s arguments and the baseline it picks (bench/guard-options.ts); what it
// measures is timing, which no test asserts.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { baselineRef, FULL, guardOptions, SHORT, THRESHOLD, writtenRef } from '../../bench/guard-options.js';

describe("the performance guard's options", () => {
  it('compare the working tree with the baseline, in full, by default', () => {
    expect(guardOptions([], {})).toEqual({ against: undefined, current: undefined, postgres: false, production: false, form: FULL, threshold: THRESHOLD });
  });

  it('take the short form, PostgreSQL, another threshold and both sides from the arguments', () => {
    const options = guardOptions(['--short', '--postgres', '--threshold', '0.7', '--against', 'HEAD~3', '--current', 'HEAD'], {});
    expect(options).toEqual({ against: 'HEAD~3', current: 'HEAD', postgres: true, production: false, form: SHORT, threshold: 0.7 });
  });

  it('measure only the API as a production installation, which notifies no address of this machine', () => {
    expect(guardOptions(['--short', '--production'], {})).toMatchObject({ production: true, form: { ...SHORT, measures: ['get', 'create'] } });
    expect(guardOptions(['--production'], {}).form).toEqual({ ...FULL, measures: ['get', 'create'] });
  });

  it('take either side from the environment, an argument first', () => {
    const env = { BENCH_GUARD_AGAINST: 'v1', BENCH_GUARD_CURRENT: 'v2' };
    expect(guardOptions([], env)).toMatchObject({ against: 'v1', current: 'v2' });
    expect(guardOptions(['--against', 'v3'], env)).toMatchObject({ against: 'v3', current: 'v2' });
    expect(guardOptions([], { BENCH_GUARD_AGAINST: '' })).toMatchObject({ against: undefined });
  });

  it('start as many servers of each build as asked, three by default', () => {
    expect(guardOptions(['--short'], {}).form.processes).toBe(3);
    expect(guardOptions(['--processes', '5'], {}).form).toEqual({ ...FULL, processes: 5 });
    expect(guardOptions(['--production', '--processes', '1'], {}).form).toEqual({ ...FULL, measures: ['get', 'create'], processes: 1 });
  });

  it('refuse a threshold that is no ratio, a count of servers that is none, and unknown arguments', () => {
    for (const threshold of ['0', '1.5', 'fast']) expect(() => guardOptions(['--threshold', threshold], {})).toThrow(/--threshold/);
    for (const processes of ['0', '1.5', 'many']) expect(() => guardOptions(['--processes', processes], {})).toThrow(/--processes/);
    expect(() => guardOptions(['--rounds', '3'], {})).toThrow();
    expect(() => guardOptions(['HEAD'], {})).toThrow();
  });
});

describe("the guard's baseline", () => {
  it('is the ref given, else the last commit that changed bench/guard-baseline, else the ref the file names', () => {
    expect(baselineRef('HEAD~1', 'abc123', '181c983')).toBe('HEAD~1');
    expect(baselineRef(undefined, 'abc123', '181c983')).toBe('abc123');
    expect(baselineRef(undefined, '', '181c983')).toBe('181c983');
  });

  it("is named on the file's last line, after the lines that explain it", () => {
    expect(writtenRef('Why this baseline.\n\n181c983\n\n')).toBe('181c983');
    expect(() => writtenRef('Why this baseline, and no ref\n')).toThrow(/a ref alone/);
    expect(() => writtenRef('')).toThrow(/a ref alone/);
    expect(() => writtenRef(fs.readFileSync(new URL('../../bench/guard-baseline', import.meta.url), 'utf8'))).not.toThrow();
  });
});
