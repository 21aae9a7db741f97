// The remediation time frames of docs/operations.md ("Third-party components"), the one copy the
// component check (scripts/check-components.ts) enforces; test/cli/check-components.test.ts holds
// the doc's table to this one. npm names the advisory database's "medium" `moderate`.

export interface TimeFrame {
  /** The severity as npm audit and advisories.json spell it. */
  severity: string;
  /** The severity as the doc's table names it. */
  documented: string;
  days: number;
}

export const TIME_FRAMES: readonly TimeFrame[] = [
  { severity: 'critical', documented: 'critical', days: 3 },
  { severity: 'high', documented: 'high', days: 14 },
  { severity: 'moderate', documented: 'medium', days: 60 },
  { severity: 'low', documented: 'low', days: 180 },
];

export function timeFrameOf(severity: string): TimeFrame | undefined {
  return TIME_FRAMES.find((frame) => frame.severity === severity);
}

/** The day a fix is due: `days` calendar days after the advisory's publication, both YYYY-MM-DD. */
export function dueDate(published: string, days: number): string {
  const [year, month, day] = published.split('-').map(Number);
  return new Date(Date.UTC(year!, month! - 1, day! + days)).toISOString().slice(0, 10);
}
