// The JSON body parser of every surface. Beyond Fastify's (prototype-poisoning keys refused), an
// empty body is no body (SDKs send `Content-Type: application/json` on body-less POSTs), a member
// given twice in one object is refused by name: JSON.parse keeps the last value, while a gateway
// or a log in front of Quipu may read the first, so the request means two things; and a body
// nested deeper than JSON_DEPTH_LIMIT is refused: every step after parsing (validation, the NUL
// check, the idempotency comparison) walks the body, and none of them need be written to survive
// 100,000 levels when no request of any surface has more than three.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type FieldError, validationError } from '../domain/errors.js';

/** Arrays and objects inside one another, the body itself counted: far beyond any request, far below any recursion's limit. */
export const JSON_DEPTH_LIMIT = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** An object's member names so far (and the one being read), or an array's position. */
type Frame = { names: Set<string>; name: string } | { index: number };

/** Where a string starting with the quote at `start` ends (the index of its closing quote). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

function pathOf(stack: readonly Frame[]): string {
  return stack.map((frame) => ('names' in frame ? frame.name : String(frame.index))).join('.');
}

/**
 * What is wrong with the shape of text JSON.parse accepted: the first member given twice in one
 * object (named by its dotted path), or nesting past JSON_DEPTH_LIMIT. One pass, linear in the
 * text: strings are skipped with indexOf, and a name is decoded only when it has an escape (`"a"`
 * and `"\u0061"` are the same member).
 */
export function shapeFault(text: string): FieldError | undefined {
  const stack: Frame[] = [];
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    switch (text.charCodeAt(i)) {
      case QUOTE: {
        const end = stringEnd(text, i);
        if (expectName) {
          const frame = stack[stack.length - 1] as { names: Set<string>; name: string };
          const raw = text.slice(i + 1, end);
          const name = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
          frame.name = name;
          if (frame.names.has(name)) return { field: pathOf(stack), message: 'must be given once' };
          frame.names.add(name);
          expectName = false;
        }
        i = end;
        break;
      }
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (stack.length === JSON_DEPTH_LIMIT) return { field: 'body', message: `must not nest arrays and objects more than ${JSON_DEPTH_LIMIT} levels deep` };
        if (text.charCodeAt(i) === OPEN_OBJECT) {
          stack.push({ names: new Set(), name: '' });
          expectName = true;
        } else stack.push({ index: 0 });
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        stack.pop();
        expectName = false;
        break;
      case COMMA: {
        const frame = stack[stack.length - 1]!;
        if ('names' in frame) expectName = true;
        else frame.index++;
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}

export type JsonBodyParser = (request: FastifyRequest, text: string, done: (error: Error | null, body?: unknown) => void) => void;

export function jsonBodyParser(app: FastifyInstance): JsonBodyParser {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (request, text, done) => {
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error, body) => {
      if (error) return done(error);
      const fault = shapeFault(text);
      if (fault !== undefined) return done(validationError([fault], `${fault.field}: ${fault.message}`));
      done(null, body);
    });
  };
}
