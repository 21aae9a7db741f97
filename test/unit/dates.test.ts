import { describe, expect, it } from 'vitest';
import { formatDateTime, parseDateTime } from '../../src/domain/dates.js';

describe('date-times', () => {
  it('accepts the formats the official clients send', () => {
    const expected = Date.UTC(2017, 2, 1, 13, 0, 0);
    for (const text of [
      '2017-03-01T13:00:00Z',
      '2017-03-01T13:00:00.000Z',
      '2017-03-01T13:00:00+0000',
      '2017-03-01T10:00:00-03:00',
      '2017-03-01 10:00:00 -0300',
      '2017-03-01T10:00:00-03',
    ]) {
      expect(parseDateTime(text)?.getTime(), text).toBe(expected);
    }
  });
  it('refuses values without a zone and impossible dates', () => {
    for (const text of ['2017-03-01T13:00:00', '2017-02-30T13:00:00Z', '2017-13-01T00:00:00Z', '2017-03-01T24:00:00Z', 'tomorrow', '2017-03-01']) {
      expect(parseDateTime(text), text).toBeUndefined();
    }
  });
  it('formats as ISO 8601 UTC with milliseconds', () => {
    expect(formatDateTime(Date.UTC(2024, 3, 18, 13, 56, 54, 859))).toBe('2024-04-18T13:56:54.859Z');
  });
});
