// JSON bodies as people read them: indented two spaces a level. Only the whitespace between tokens
// changes: strings and numbers are copied as sent (a parse and a stringify would turn 4000.0000
// into 4000 and lose digits past a double's), so what is shown is what was sent, laid out.

const INDENT = '  ';

/** `text` indented when it is one JSON value; anything else comes back as it is. */
export function prettyJson(text: string): string {
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  let out = '';
  let depth = 0;
  const newline = () => `\n${INDENT.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += text.slice(i, end + 1);
      i = end;
    } else if (c === '{' || c === '[') {
      const rest = text.slice(i + 1).trimStart();
      if (rest[0] === (c === '{' ? '}' : ']')) {
        out += c + rest[0];
        i = text.length - rest.length;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += c + newline();
    } else if (c === ':') {
      out += ': ';
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}
