/**
 * Finds the first JSON syntax error and its offset. Written by hand because JSON.parse on
 * Node 20 reports no position for many errors ("Unexpected token '}', … is not valid JSON"),
 * and users need a line and column to fix their file.
 */
export function findJsonSyntaxError(text: string): { offset: number; message: string } | undefined {
  let i = 0;
  const fail = (message: string, at = i): never => {
    throw new JsonStop(at, message);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const describe = (at: number) => (at >= text.length ? 'end of file' : JSON.stringify(text[at]));

  const value = (): void => {
    space();
    const ch = text[i];
    if (ch === '{') return object();
    if (ch === '[') return array();
    if (ch === '"') return string();
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return number();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    fail(`unexpected ${describe(i)}, expected a value`);
  };

  const object = (): void => {
    i++;
    space();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      space();
      if (text[i] !== '"') fail(text[i] === '}' ? 'trailing comma before "}"' : `unexpected ${describe(i)}, expected a property name in double quotes`);
      string();
      space();
      if (text[i] !== ':') fail(`unexpected ${describe(i)}, expected ":" after the property name`);
      i++;
      value();
      space();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      fail(`unexpected ${describe(i)}, expected "," or "}"`);
    }
  };

  const array = (): void => {
    i++;
    space();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      space();
      if (text[i] === ']') fail('trailing comma before "]"');
      value();
      space();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      fail(`unexpected ${describe(i)}, expected "," or "]"`);
    }
  };

  const string = (): void => {
    const start = i;
    i++;
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === '\\') {
        const esc = text[i + 1];
        if (esc === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('invalid \\u escape in a string');
          i += 6;
        } else if (esc !== undefined && '"\\/bfnrt'.includes(esc)) i += 2;
        else fail('invalid escape in a string');
        continue;
      }
      if (ch < ' ') fail(ch === '\n' ? 'line break inside a string (write \\n)' : 'control character inside a string');
      i++;
    }
    fail('unterminated string', start);
  };

  const number = (): void => {
    const re = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    re.lastIndex = i;
    const m = re.exec(text);
    if (m === null) fail('invalid number');
    i = re.lastIndex;
    if (/[0-9.eE+-]/.test(text[i] ?? '')) fail('invalid number');
  };

  try {
    value();
    space();
    if (i < text.length) fail(`unexpected ${describe(i)} after the end of the JSON value`);
    return undefined;
  } catch (err) {
    if (err instanceof JsonStop) return { offset: err.offset, message: err.message };
    throw err;
  }
}

class JsonStop extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}
