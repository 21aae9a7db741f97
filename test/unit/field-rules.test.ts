// The field tables' rules as the use cases apply them: lengths counted in code points as JSON
// Schema counts them, a lenient rule's breaks (all, or its format only) kept as doubts beside the
// value, and an account number sent as a JSON number taken only while JSON kept its digits.
import { describe, expect, it } from 'vitest';
import { FieldErrors } from '../../src/domain/errors.js';
import { decodeFields, type FieldTable } from '../../src/domain/field-rules.js';

const TABLE: FieldTable = {
  name: { kind: 'string', maxLength: 3 },
  note: { kind: 'string', maxLength: 3, lenient: true },
  email: { kind: 'email', lenient: true },
  picture: { kind: 'web-url', maxLength: 20, lenient: 'format' },
  account: { kind: 'text-or-number', maxLength: 30 },
};

function decode(raw: Record<string, string | number>) {
  const errors = new FieldErrors();
  const fields = decodeFields(TABLE, raw, errors);
  return { fields: Object.fromEntries(fields), errors: errors.list, doubts: errors.doubts };
}

describe('decodeFields', () => {
  it('counts characters as code points: an emoji is one, a lone surrogate is one', () => {
    expect(decode({ name: '😀😀😀' }).errors).toEqual([]);
    expect(decode({ name: '😀😀😀😀' }).errors).toEqual([{ field: 'name', message: 'must be at most 3 characters long' }]);
    expect(decode({ name: '\uD83Dab' }).errors).toEqual([]);
  });

  it('keeps a value that breaks only a lenient rule, and names what it breaks as a doubt', () => {
    expect(decode({ note: 'four', email: 'not an email' })).toEqual({
      fields: { note: 'four', email: 'not an email' },
      errors: [],
      doubts: [
        { field: 'note', message: 'must be at most 3 characters long' },
        { field: 'email', message: 'must be an email address' },
      ],
    });
  });

  it("keeps a value that breaks only a format-lenient rule's format; its lengths stay the rule's", () => {
    expect(decode({ picture: 'shoe.png' })).toEqual({
      fields: { picture: 'shoe.png' },
      errors: [],
      doubts: [{ field: 'picture', message: 'must be an absolute http or https URL' }],
    });
    expect(decode({ picture: 'x'.repeat(21) })).toEqual({
      fields: {},
      errors: [{ field: 'picture', message: 'must be at most 20 characters long' }],
      doubts: [],
    });
  });

  it('takes an account number sent as a JSON number only while it is a whole number below 2^53', () => {
    expect(decode({ account: 123459876 }).fields).toEqual({ account: '123459876' });
    const refused = { field: 'account', message: 'as a JSON number must be a whole number below 2^53: send it as a string' };
    for (const account of [2 ** 53, 1e21, 12.5, -1]) expect(decode({ account }).errors).toEqual([refused]);
    expect(decode({ account: '123456789012345678901' }).fields).toEqual({ account: '123456789012345678901' });
  });
});
