/**
 * Finds where a JSON text goes wrong. Node 20's JSON.parse messages vary between versions and
 * often carry no position, so this scanner walks the RFC 8259 grammar itself and reports the
 * offset of the first error. It is only run after JSON.parse has failed.
 */

export interface JsonSyntaxProblem {
  /** UTF-16 offset of the offending character (text.length for "unexpected end"). */
  offset: number;
  message: string;
  /** A likely fix for common mistakes (single quotes, trailing commas, bare words). */
  hint?: string;
}

type State = 'value' | 'first-value' | 'key' | 'first-key' | 'colon' | 'after' | 'end';

const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  const stack: Array<'object' | 'array'> = [];
  let state: State = 'value';
  let afterComma = false;
  let i = 0;
  const n = text.length;

  const afterValue = (): State => (stack.length > 0 ? 'after' : 'end');

  while (true) {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
    if (i >= n) {
      return state === 'end' ? undefined : { offset: n, message: 'unexpected end of input', ...endHint(stack) };
    }
    const c = text[i]!;

    if (state === 'end') {
      return {
        offset: i,
        message: unexpected(text, i),
        hint: 'only one JSON value is allowed; remove what follows it',
      };
    }
    if (state === 'first-value' && c === ']') {
      stack.pop();
      i++;
      state = afterValue();
      continue;
    }
    if (state === 'first-key' && c === '}') {
      stack.pop();
      i++;
      state = afterValue();
      continue;
    }
    if (state === 'value' || state === 'first-value') {
      if (c === '{') {
        stack.push('object');
        state = 'first-key';
        i++;
        afterComma = false;
        continue;
      }
      if (c === '[') {
        stack.push('array');
        state = 'first-value';
        i++;
        afterComma = false;
        continue;
      }
      const end = scanScalar(text, i);
      if (typeof end !== 'number') {
        if (afterComma && c === ']') return { ...end, hint: 'JSON does not allow a comma before "]"' };
        return end;
      }
      i = end;
      afterComma = false;
      state = afterValue();
      continue;
    }
    if (state === 'key' || state === 'first-key') {
      if (c !== '"') {
        const hint =
          afterComma && c === '}'
            ? 'JSON does not allow a comma before "}"'
            : c === "'"
              ? 'JSON strings use double quotes'
              : 'property names must be strings in double quotes';
        return { offset: i, message: unexpected(text, i), hint };
      }
      const end = scanString(text, i);
      if (typeof end !== 'number') return end;
      i = end;
      afterComma = false;
      state = 'colon';
      continue;
    }
    if (state === 'colon') {
      if (c !== ':') return { offset: i, message: unexpected(text, i), hint: 'expected ":" after the property name' };
      i++;
      state = 'value';
      continue;
    }
    // state === 'after': inside a container, after one of its values.
    const top = stack[stack.length - 1];
    if (c === ',') {
      i++;
      afterComma = true;
      state = top === 'object' ? 'key' : 'value';
      continue;
    }
    if ((top === 'object' && c === '}') || (top === 'array' && c === ']')) {
      stack.pop();
      i++;
      state = afterValue();
      continue;
    }
    return {
      offset: i,
      message: unexpected(text, i),
      hint: top === 'object' ? 'expected "," or "}"' : 'expected "," or "]"',
    };
  }
}

/** Returns the offset after a string, number or literal starting at i, or the problem. */
function scanScalar(text: string, i: number): number | JsonSyntaxProblem {
  const c = text[i]!;
  if (c === '"') return scanString(text, i);
  if (c === '-' || (c >= '0' && c <= '9')) return scanNumber(text, i);
  for (const word of ['true', 'false', 'null']) {
    if (c === word[0]) {
      for (let k = 1; k < word.length; k++) {
        if (text[i + k] !== word[k]) {
          return i + k >= text.length
            ? { offset: text.length, message: 'unexpected end of input' }
            : { offset: i + k, message: unexpected(text, i + k) };
        }
      }
      return i + word.length;
    }
  }
  const hint =
    c === "'"
      ? 'JSON strings use double quotes'
      : /[A-Za-z_]/.test(c)
        ? 'text values must be in double quotes'
        : undefined;
  return { offset: i, message: unexpected(text, i), ...(hint ? { hint } : {}) };
}

function scanString(text: string, start: number): number | JsonSyntaxProblem {
  let j = start + 1;
  while (j < text.length) {
    const c = text[j]!;
    if (c === '"') return j + 1;
    if (c === '\\') {
      const e = text[j + 1];
      if (e === undefined) break;
      if (e === 'u') {
        for (let k = 2; k < 6; k++) {
          const h = text[j + k];
          if (h === undefined) return { offset: text.length, message: 'unexpected end of input' };
          if (!/[0-9A-Fa-f]/.test(h))
            return { offset: j + k, message: `invalid \\u escape: unexpected ${quoteChar(text, j + k)}` };
        }
        j += 6;
        continue;
      }
      if (!ESCAPES.has(e))
        return { offset: j, message: `invalid escape "\\${e}"`, hint: 'write a backslash as "\\\\"' };
      j += 2;
      continue;
    }
    if (c.charCodeAt(0) < 0x20) {
      const what = c === '\n' || c === '\r' ? 'a line break' : `control character ${codePoint(text, j)}`;
      return {
        offset: j,
        message: `unexpected ${what} in a string`,
        hint: 'close the string with " or escape the character (\\n, \\t)',
      };
    }
    j++;
  }
  return { offset: start, message: 'unterminated string', hint: 'close the string with "' };
}

function scanNumber(text: string, start: number): number | JsonSyntaxProblem {
  let j = start;
  if (text[j] === '-') j++;
  const digits = (from: number): number => {
    let k = from;
    while (k < text.length && text[k]! >= '0' && text[k]! <= '9') k++;
    return k;
  };
  const need = (at: number): JsonSyntaxProblem =>
    at >= text.length
      ? { offset: text.length, message: 'unexpected end of input' }
      : { offset: at, message: unexpected(text, at) };

  if (text[j] === '0') {
    j++;
    if (text[j] !== undefined && text[j]! >= '0' && text[j]! <= '9') {
      return { offset: j, message: unexpected(text, j), hint: 'numbers cannot have leading zeros' };
    }
  } else {
    const k = digits(j);
    if (k === j) return need(j);
    j = k;
  }
  if (text[j] === '.') {
    const k = digits(j + 1);
    if (k === j + 1) return need(j + 1);
    j = k;
  }
  if (text[j] === 'e' || text[j] === 'E') {
    j++;
    if (text[j] === '+' || text[j] === '-') j++;
    const k = digits(j);
    if (k === j) return need(j);
    j = k;
  }
  return j;
}

function endHint(stack: Array<'object' | 'array'>): { hint?: string } {
  const top = stack[stack.length - 1];
  if (top === 'object') return { hint: 'an object is not closed with "}"' };
  if (top === 'array') return { hint: 'a list is not closed with "]"' };
  return {};
}

function unexpected(text: string, at: number): string {
  return `unexpected ${quoteChar(text, at)}`;
}

function quoteChar(text: string, at: number): string {
  const cp = text.codePointAt(at)!;
  // Invisible or confusable characters are shown by code point so the user can find them.
  if (
    cp < 0x21 ||
    (cp >= 0x7f && cp <= 0xa0) ||
    cp === 0xfeff ||
    (cp >= 0x2000 && cp <= 0x200f) ||
    (cp >= 0x2028 && cp <= 0x202f)
  ) {
    return `character ${codePoint(text, at)}`;
  }
  // A double quote inside double quotes would read as three quotes.
  return cp === 0x22 ? `'"'` : `"${String.fromCodePoint(cp)}"`;
}

function codePoint(text: string, at: number): string {
  return `U+${text.codePointAt(at)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** 1-based line and column (in characters, not UTF-16 units) of an offset; CRLF, LF and CR end lines. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let column = 1;
  let i = 0;
  while (i < offset && i < text.length) {
    const c = text[i]!;
    if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n' && i + 1 < offset) i++;
      line++;
      column = 1;
      i++;
      continue;
    }
    const cp = text.codePointAt(i)!;
    i += cp > 0xffff ? 2 : 1;
    column++;
  }
  return { line, column };
}
