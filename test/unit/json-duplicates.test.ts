import { describe, expect, it } from 'vitest';
import { JSON_DEPTH_LIMIT, shapeFault } from '../../src/http/json-body.js';

describe('shapeFault', () => {
  it.each([
    ['{"amount":1000,"currency":"CLP","subject":"x","amount":99999999}', 'amount'],
    ['{"amount":-100,"amount":4000}', 'amount'],
    ['{"a":"x","\\u0061":"y"}', 'a'],
    ['{"a":{"b":1,"c":{"d":2,"d":3}}}', 'a.c.d'],
    ['{"credits":[{"x":1},{"y":2,"y":3}]}', 'credits.1.y'],
    ['[{"a":1},[{"b":1,"b":2}]]', '1.0.b'],
    ['{"a":{"a":1},"b":{"a":2},"c":[{"a":1},{"a":1}],"a":0}', 'a'],
  ])('finds the duplicate in %s', (text, path) => {
    expect(shapeFault(text)).toEqual({ field: path, message: 'must be given once' });
  });

  it.each([
    '{}',
    '[]',
    '"a"',
    '{"a":1,"b":{"a":1},"c":[{"a":1},{"a":1}]}',
    '{"a":"}\\"a\\":{","b":"\\\\","c":"[,{"}',
    '{"A":1,"a":2}',
    ' { "a" : [ ] , "b" : { } } ',
    `${'['.repeat(JSON_DEPTH_LIMIT)}${']'.repeat(JSON_DEPTH_LIMIT)}`,
    `{"a":${'{"b":'.repeat(JSON_DEPTH_LIMIT - 1)}1${'}'.repeat(JSON_DEPTH_LIMIT)}`,
    `{"a":"${'['.repeat(100)}"}`,
  ])('finds none in %s', (text) => {
    JSON.parse(text);
    expect(shapeFault(text)).toBeUndefined();
  });

  it.each([
    ['arrays', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    ['objects', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
    ['one level past the limit', `${'['.repeat(JSON_DEPTH_LIMIT + 1)}${']'.repeat(JSON_DEPTH_LIMIT + 1)}`],
    ['a deep member beside others', `{"x":1,"y":${'['.repeat(JSON_DEPTH_LIMIT)}${']'.repeat(JSON_DEPTH_LIMIT)}}`],
  ])('refuses %s nested past the limit, naming the limit', (_name, text) => {
    JSON.parse(text);
    expect(shapeFault(text)).toEqual({ field: 'body', message: `must not nest arrays and objects more than ${JSON_DEPTH_LIMIT} levels deep` });
  });
});
