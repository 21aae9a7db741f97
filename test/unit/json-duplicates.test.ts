import { describe, expect, it } from 'vitest';
import { duplicatedMember } from '../../src/http/json-body.js';

describe('duplicatedMember', () => {
  it.each([
    ['{"amount":1000,"currency":"CLP","subject":"x","amount":99999999}', 'amount'],
    ['{"amount":-100,"amount":4000}', 'amount'],
    ['{"a":"x","\\u0061":"y"}', 'a'],
    ['{"a":{"b":1,"c":{"d":2,"d":3}}}', 'a.c.d'],
    ['{"credits":[{"x":1},{"y":2,"y":3}]}', 'credits.1.y'],
    ['[{"a":1},[{"b":1,"b":2}]]', '1.0.b'],
    ['{"a":{"a":1},"b":{"a":2},"c":[{"a":1},{"a":1}],"a":0}', 'a'],
  ])('finds the duplicate in %s', (text, path) => {
    expect(duplicatedMember(text)).toBe(path);
  });

  it.each([
    '{}',
    '[]',
    '"a"',
    '{"a":1,"b":{"a":1},"c":[{"a":1},{"a":1}]}',
    '{"a":"}\\"a\\":{","b":"\\\\","c":"[,{"}',
    '{"A":1,"a":2}',
    ' { "a" : [ ] , "b" : { } } ',
  ])('finds none in %s', (text) => {
    JSON.parse(text);
    expect(duplicatedMember(text)).toBeUndefined();
  });
});
