import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError } from '@anytool/core/internal';

/**
 * Parses a tool call's arguments from the command line: one JSON object. Bad
 * JSON is a usage error that names the line, column and what is there (the
 * engine's own message says it differently in each Node version).
 */
export function parseJsonArguments(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AnytoolError(
      ErrorCode.InvalidUsage,
      `the arguments are not valid JSON: ${describeJsonError(text, error)}; pass one JSON object, such as '{"city":"Oslo"}' (single quotes keep the shell away from it)`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new AnytoolError(ErrorCode.InvalidUsage, `the arguments must be a JSON object (named arguments), got ${what}; pass such as '{"city":"Oslo"}'`);
  }
  return value as Record<string, unknown>;
}

function describeJsonError(text: string, error: unknown): string {
  let at: number | undefined;
  try {
    at = firstJsonError(text);
  } catch {
    // Nesting too deep for this little scanner: the engine's message is all there is.
  }
  if (at === undefined) return describeError(error);
  if (at >= text.length) return text.trim() === '' ? 'it is empty' : `it ends too early (at position ${at})`;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  return `unexpected ${JSON.stringify(text[at])} at position ${at} (line ${line}, column ${column})`;
}

/** The offset of the first character that makes `text` invalid JSON (text.length when it ends too early), or undefined when it is valid. */
function firstJsonError(text: string): number | undefined {
  let i = 0;
  class Stop {
    constructor(readonly at: number) {}
  }
  const fail = (): never => {
    throw new Stop(i);
  };
  const space = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): void => {
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined || c < ' ') fail();
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        i++;
        if (text[i] === 'u') {
          for (let k = 1; k <= 4; k++)
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) {
              i += k;
              fail();
            }
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
  };
  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (c === '{') {
          space();
          if (text[i] !== '"') fail();
          string();
          space();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === close) {
          i++;
          return;
        }
        fail();
      }
    }
    if (c === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    number.lastIndex = i;
    if (c === undefined || !number.test(text)) fail();
    i = number.lastIndex;
  };
  try {
    value();
    space();
    if (i < text.length) fail();
    return undefined;
  } catch (stop) {
    if (stop instanceof Stop) return stop.at;
    throw stop;
  }
}
