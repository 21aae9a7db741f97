// Text the dashboard writes for people and spreadsheets: JSON bodies indented without a value
// changed, and CSV fields quoted as RFC 4180 says, text that a spreadsheet would run as a formula
// made inert.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvLine, csvText } from '../../src/render/csv.js';
import { prettyJson } from '../../src/render/pretty-json.js';

describe('prettyJson', () => {
  it('indents objects and arrays two spaces a level', () => {
    expect(prettyJson('{"a":1,"b":[true,null],"c":{"d":"x"}}')).toBe('{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ],\n  "c": {\n    "d": "x"\n  }\n}');
  });

  it('copies numbers and strings as sent, escapes, brackets and colons inside strings included', () => {
    const body = '{"amount":4000.0000,"big":12345678901234567890,"s":"a \\"quoted\\" {x: [1,2]}","e":{},"l":[ ]}';
    const shown = prettyJson(body);
    expect(shown).toContain('"amount": 4000.0000,');
    expect(shown).toContain('"big": 12345678901234567890,');
    expect(shown).toContain('"s": "a \\"quoted\\" {x: [1,2]}",');
    expect(shown).toContain('"e": {},\n  "l": []');
    expect(JSON.parse(shown)).toEqual(JSON.parse(body));
  });

  it('leaves a body that is not JSON as it is', () => {
    expect(prettyJson('api_version=1.3&notification_token=abc')).toBe('api_version=1.3&notification_token=abc');
    expect(prettyJson('{"a":')).toBe('{"a":');
  });
});

describe('CSV', () => {
  it('quotes a field with a comma, quote or line break, and ends lines with CRLF', () => {
    const line = csvLine(['plain', 'a,b', 'say "hi"', 'two\nlines', 12.5, null]);
    expect(line).toBe('plain,"a,b","say ""hi""","two\nlines",12.5,\r\n');
    expect(parse(line)).toEqual([['plain', 'a,b', 'say "hi"', 'two\nlines', '12.5', '']]);
  });

  it('makes text a spreadsheet would run as a formula inert, and leaves other text alone', () => {
    for (const formula of ['=HYPERLINK("http://evil")', '+1', '-2', '@SUM(A1)', '\tx']) expect(csvText(formula)).toBe(`'${formula}`);
    expect(csvText('Green teapot')).toBe('Green teapot');
    expect(csvText(null)).toBeNull();
  });
});
