import { describe, expect, it } from 'vitest';
import { fieldErrors, validatorCompiler } from '../../src/http/validation.js';

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['credits'],
  properties: {
    credits: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['amount'], properties: { amount: { type: 'number' } } } },
  },
};

function errorsFor(body: unknown) {
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/' }) as unknown as ((b: unknown) => boolean) & { errors: never[] };
  expect(validate(body)).toBe(false);
  return fieldErrors(validate.errors);
}

describe('validation error fields', () => {
  it('names fields inside nested bodies by their dotted path', () => {
    expect(errorsFor({ credits: [{ amount: 1 }, {}] })).toEqual([{ field: 'credits.1.amount', message: 'is required' }]);
    expect(errorsFor({ credits: [{ amount: 1, extra: true }] })).toEqual([{ field: 'credits.0.extra', message: 'is not a known field' }]);
    expect(errorsFor({ credits: [{ amount: 'x' }] })).toEqual([{ field: 'credits.0.amount', message: 'must be a number' }]);
  });
  it('names top-level fields plainly and the body itself when it is not an object', () => {
    expect(errorsFor({})).toEqual([{ field: 'credits', message: 'is required' }]);
    expect(errorsFor([])).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
  });
});
