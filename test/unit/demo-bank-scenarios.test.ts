// The scenario table is the one place DemoBank's magic values live: the documentation repeats it,
// so every scenario must appear there with its triggers.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEMO_COORDINATES, INSUFFICIENT_FUNDS_RUT, PENDING_APPROVAL_RUT, SCENARIO_TEXTS_ES, SCENARIOS } from '../../src/bank/demo-bank-scenarios.js';

const doc = fs.readFileSync(new URL('../../docs/automatic-payments.md', import.meta.url), 'utf8');

describe('the DemoBank scenarios', () => {
  it('are each documented in docs/automatic-payments.md', () => {
    for (const scenario of SCENARIOS) expect(doc).toContain(`| \`${scenario.id}\` |`);
  });

  it('name triggers the documentation gives', () => {
    for (const value of [PENDING_APPROVAL_RUT, INSUFFICIENT_FUNDS_RUT, DEMO_COORDINATES.pay.join(' '), DEMO_COORDINATES.fail.join(' ')])
      expect(doc).toContain(value);
  });

  it('are each told in Spanish too, for the dashboard in Spanish, and nothing else is', () => {
    expect(Object.keys(SCENARIO_TEXTS_ES).sort()).toEqual(SCENARIOS.map((s) => s.id).sort());
    for (const scenario of SCENARIOS) expect(SCENARIO_TEXTS_ES[scenario.id]!.trigger).not.toBe(scenario.trigger);
  });

  it('have unique ids', () => {
    expect(new Set(SCENARIOS.map((s) => s.id)).size).toBe(SCENARIOS.length);
  });
});
