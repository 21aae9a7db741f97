// The dashboard's pure rules: password hashes that carry their parameters (and the cost settings),
// the password rules, session lifetimes and sign-in limits, and per-day totals folded in Santiago's days.
import { describe, expect, it } from 'vitest';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, sessionAlive } from '../../src/domain/dashboard-session.js';
import {
  afterFailure,
  afterSuccess,
  delayAfter,
  SIGN_IN_MEMORY_MS,
  SIGN_IN_THROTTLES,
  type ThrottleState,
  waitBeforeAttempt,
} from '../../src/domain/sign-in-throttle.js';
import { dictionary } from '@zxcvbn-ts/language-common';
import { loadConfig } from '../../src/config.js';
import { hashPassword, PASSWORD_HASH_COST, scryptMemory, verifyPassword, weakerThan } from '../../src/domain/password-hash.js';
import { contextWords, passwordProblem } from '../../src/domain/password-policy.js';
import { CHOSEN_PASSWORD } from '../helpers/server.js';
import { dayOf, foldTotals, HOUR_MS, periodStart } from '../../src/domain/payment-totals.js';

describe('password hashes', () => {
  it('verify the password they were made from, and nothing else', async () => {
    const stored = await hashPassword('correct horse', new Uint8Array(16).fill(7));
    expect(stored).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsE', stored)).toBe(false);
    expect(await verifyPassword('correct horse', stored.replace('ln=17', 'ln=16'))).toBe(false);
    expect(await verifyPassword('x', 'not a hash')).toBe(false);
  });

  it('made at a lower cost still verify, and are known as weaker than the current cost', async () => {
    const old = await hashPassword('correct horse', new Uint8Array(16).fill(7), 15);
    expect(old).toContain('$scrypt$ln=15,');
    expect(await verifyPassword('correct horse', old)).toBe(true);
    expect(weakerThan(old, PASSWORD_HASH_COST)).toBe(true);
    expect(weakerThan(old, 15)).toBe(false);
    // 128 MiB at the current cost: inside what derive() allows scrypt.
    expect(scryptMemory({ ln: PASSWORD_HASH_COST, r: 8, p: 1 })).toBe(128 * 1024 * 1024);
  });
});

describe('the password rules', () => {
  const context = { email: 'ana.rojas@teteras-andinas.cl', accountName: 'Teteras Andinas' };

  it('refuse the most common passwords, however they are cased or disguised', () => {
    expect(dictionary['passwords-common'].length).toBeGreaterThanOrEqual(3000);
    for (const common of ['password', '12345678', 'Sunshine', 'P@ssw0rd', 'iloveyou', 'qwertyuiop'])
      expect(passwordProblem(common, context), common).toBe('common');
    // What the list leaves out because zxcvbn finds it by pattern: repeats and runs.
    for (const pattern of ['aaaaaaaa', '00000000', 'abcabcabc', '19871987', 'abcdefgh', '87654321', 'ZYXWVUTSR'])
      expect(passwordProblem(pattern, context), pattern).toBe('common');
    // The 3,000th most common password of the list is refused too.
    expect(passwordProblem(dictionary['passwords-common'].filter((p) => p.length >= 8)[2999]!, context)).toBe('common');
  });

  it("refuse Quipu's words and the user's email and account name, inside a longer password too", () => {
    expect(contextWords(context)).toEqual(expect.arrayContaining(['quipu', 'khipu', 'anarojas', 'rojas', 'teteras', 'andinas']));
    for (const word of ['MiQuipu2024!', 'khipu-secreto-77', 'Rojas#Vela1987', 'TeterasDelSur99', 'anD1nas-m0unta1n', 'anarojas-9182'])
      expect(passwordProblem(word, context), word).toBe('context');
    // Words shorter than four letters are not refused: `ana` is in too many good passwords.
    expect(passwordProblem('banana-split-vortex', context)).toBeUndefined();
  });

  it('take a long, uncommon password of no context word, and refuse short and overlong ones', () => {
    expect(passwordProblem('Larch-Quartz-Otter-8841', context)).toBeUndefined();
    expect(passwordProblem('x7#kQ2', context)).toBe('too-short');
    expect(passwordProblem('x'.repeat(1025), context)).toBe('too-long');
  });
});

describe('settings of the dashboard sign-in', () => {
  const production = { SANDBOX: 'false', QUIPU_ENCRYPTION_KEY: 'k'.repeat(64) };

  it('require a second factor with SANDBOX=false unless told otherwise; developer mode leaves it optional', () => {
    expect(loadConfig({}).dashboardTwoFactor).toBe('optional');
    expect(loadConfig(production).dashboardTwoFactor).toBe('required');
    expect(loadConfig({ ...production, DASHBOARD_TWO_FACTOR: 'optional' }).dashboardTwoFactor).toBe('optional');
  });

  it('hash at 2^17 by default; a lower PASSWORD_HASH_COST is for tests and refused with SANDBOX=false', () => {
    expect(loadConfig({}).passwordHashCost).toBe(17);
    expect(loadConfig(production).passwordHashCost).toBe(17);
    expect(loadConfig({ PASSWORD_HASH_COST: '12' }).passwordHashCost).toBe(12);
    expect(loadConfig({ ...production, PASSWORD_HASH_COST: '18' }).passwordHashCost).toBe(18);
    expect(() => loadConfig({ ...production, PASSWORD_HASH_COST: '12' })).toThrow(
      'PASSWORD_HASH_COST below 17 is for test suites only and refused with SANDBOX=false',
    );
    expect(() => loadConfig({ PASSWORD_HASH_COST: '21' })).toThrow('PASSWORD_HASH_COST must be between 10 and 20');
  });

  it('hold DEMO_PASSWORD to the password rules with SANDBOX=false only: the developer-mode demo keeps any of 8 characters', () => {
    expect(loadConfig({ DEMO_PASSWORD: 'demo-password-for-ci' }).demoCredentials.password).toBe('demo-password-for-ci');
    expect(() => loadConfig({ ...production, DEMO_PASSWORD: 'password123' })).toThrow(
      'DEMO_PASSWORD is one of the most common passwords (the password rules apply with SANDBOX=false)',
    );
    expect(() => loadConfig({ ...production, DEMO_PASSWORD: 'demo-password-for-ci' })).toThrow("DEMO_PASSWORD must not contain Quipu's name");
    expect(loadConfig({ ...production, DEMO_PASSWORD: CHOSEN_PASSWORD }).demoCredentials.password).toBe(CHOSEN_PASSWORD);
  });
});

describe('sessions and sign-in limits', () => {
  it('end when idle or too old', () => {
    expect(sessionAlive({ createdAt: 0, lastSeenAt: 0 }, SESSION_IDLE_MS - 1)).toBe(true);
    expect(sessionAlive({ createdAt: 0, lastSeenAt: 0 }, SESSION_IDLE_MS)).toBe(false);
    expect(sessionAlive({ createdAt: 0, lastSeenAt: SESSION_ABSOLUTE_MS - 1 }, SESSION_ABSOLUTE_MS)).toBe(false);
  });
});

describe('the sign-in throttle', () => {
  it('lets the free failures through, then doubles the wait after each failure, up to its cap', () => {
    const { free, firstDelayMs, maxDelayMs } = SIGN_IN_THROTTLES.pair;
    expect(delayAfter('pair', free - 1)).toBe(0);
    expect(delayAfter('pair', free)).toBe(firstDelayMs);
    expect(delayAfter('pair', free + 1)).toBe(2 * firstDelayMs);
    expect(delayAfter('pair', free + 3)).toBe(8 * firstDelayMs);
    expect(delayAfter('pair', free + 100)).toBe(maxDelayMs);
    // Many places guessing one email slow its owner too, but for a minute at most.
    expect(delayAfter('email', 10_000)).toBe(60_000);
  });

  it('counts failures in a row, and forgets them only after longer than any wait', () => {
    let state: ThrottleState | undefined;
    for (let i = 0; i < SIGN_IN_THROTTLES.pair.free; i++) state = afterFailure('pair', state, 1_000 * i);
    expect(state).toEqual({ failures: SIGN_IN_THROTTLES.pair.free, lastFailureAt: 4_000, blockedUntil: 4_000 + SIGN_IN_THROTTLES.pair.firstDelayMs });
    expect(waitBeforeAttempt([undefined, state], 4_500)).toBe(500);
    expect(waitBeforeAttempt([state], 5_000)).toBe(0);
    expect(SIGN_IN_MEMORY_MS).toBeGreaterThan(SIGN_IN_THROTTLES.pair.maxDelayMs);
    expect(afterFailure('pair', state, 4_000 + SIGN_IN_THROTTLES.pair.maxDelayMs).failures).toBe(SIGN_IN_THROTTLES.pair.free + 1);
    expect(afterFailure('pair', state, 4_000 + SIGN_IN_MEMORY_MS).failures).toBe(1);
  });

  it('takes back the failure an attempt was counted as when it turns out right', () => {
    const counted = afterFailure('address', { failures: 2, lastFailureAt: 0, blockedUntil: 0 }, 10);
    expect(afterSuccess(counted)).toEqual({ failures: 2, lastFailureAt: 10, blockedUntil: 10 });
  });
});

describe('per-day totals', () => {
  it('count every local day of the period, across a change of Chile’s offset, today included', () => {
    // Chile goes back from -03 to -04 on the first Sunday of April (2024-04-07).
    const now = Date.parse('2024-04-10T15:00:00Z');
    const start = periodStart(now, 5);
    expect(dayOf(start)).toBe('2024-04-06');
    expect(dayOf(start - HOUR_MS)).toBe('2024-04-05');
    const hourOf = (iso: string) => (Date.parse(iso) - start) / HOUR_MS;
    const totals = foldTotals(
      [
        { hour: hourOf('2024-04-07T03:00:00Z'), currency: 'CLP', paid: true, count: 2, amount: 30_000_000 },
        { hour: hourOf('2024-04-10T14:00:00Z'), currency: 'CLP', paid: false, count: 1, amount: 5_000_000 },
        { hour: hourOf('2024-04-10T14:00:00Z'), currency: 'USD', paid: true, count: 1, amount: 10_000 },
      ],
      start,
      now,
    );
    expect(totals.map((t) => t.currency)).toEqual(['CLP', 'USD']);
    const clp = totals[0]!;
    expect(clp.days.map((d) => d.day)).toEqual(['2024-04-06', '2024-04-07', '2024-04-08', '2024-04-09', '2024-04-10']);
    // 03:00Z on the 7th is when the clocks go back from midnight to 23:00: still the 6th in Santiago.
    expect(clp.days[0]).toEqual({ day: '2024-04-06', created: 2, paid: 2, amountPaid: 30_000_000 });
    expect(clp.days[1]).toEqual({ day: '2024-04-07', created: 0, paid: 0, amountPaid: 0 });
    expect(clp.today).toEqual({ day: '2024-04-10', created: 1, paid: 0, amountPaid: 0 });
    expect(clp.period).toMatchObject({ created: 3, paid: 2, amountPaid: 30_000_000 });
  });
});
