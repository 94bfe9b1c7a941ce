/**
 * A string that matches a JSON Schema `pattern`, for schema-value.ts: the pattern is parsed in a simple subset and a
 * string drawn from it, then checked with the pattern itself (JSON Schema patterns are ECMA-262 regular expressions,
 * unanchored). Outside the subset, or when no draw matches, the answer is undefined and the caller writes words.
 */

/** A quantifier asking for more repetitions than this is outside the subset (its string would be huge). */
export const MAX_PATTERN_COUNT = 1_000;

/** A string of `min`–`max` code points matching `pattern`, drawn with `index(n)` (a whole number below n). */
export function patternSample(
  pattern: string,
  min: number,
  max: number,
  index: (n: number) => number,
): string | undefined {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  const tree = parsePattern(pattern);
  if (tree === undefined) return undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    const text = fromPattern(tree, min, index);
    if (re.test(text) && length(text) >= min && length(text) <= max) return text;
  }
  return undefined;
}

function fromPattern(node: PatternNode, min: number, index: (n: number) => number): string {
  switch (node.kind) {
    case 'chars':
      return node.chars[index(node.chars.length)]!;
    case 'sequence': {
      let text = node.items.map((n) => fromPattern(n, 0, index)).join('');
      // Grow the last repeatable part until the minimum length is met.
      const last = [...node.items].reverse().find((n) => n.kind === 'repeat' && n.max > n.min);
      for (let i = 0; last && length(text) < min && i < Math.min(min, MAX_PATTERN_COUNT); i++)
        text += fromPattern(last, 0, index);
      return text;
    }
    case 'alternatives':
      return fromPattern(node.options[index(node.options.length)]!, min, index);
    case 'repeat': {
      const count = node.min + index(Math.min(node.max, node.min + 3) - node.min + 1);
      let text = '';
      for (let i = 0; i < count; i++) text += fromPattern(node.item, 0, index);
      return text;
    }
  }
}

/** Length in code points, as JSON Schema counts it. */
function length(text: string): number {
  return [...text].length;
}

// A pattern in the simple subset: literals, escapes (\d \w \s and escaped punctuation), `.`, character classes
// with ranges (negated ones drawn from letters and digits), groups with alternatives, and the quantifiers
// ? * + {n} {n,} {n,m}; ^ and $ are anchors. Anything else (look-arounds, back-references) gives undefined, and
// the caller falls back to plain words.
type PatternNode =
  | { kind: 'chars'; chars: string[] }
  | { kind: 'sequence'; items: PatternNode[] }
  | { kind: 'alternatives'; options: PatternNode[] }
  | { kind: 'repeat'; item: PatternNode; min: number; max: number };

const DIGITS = [...'0123456789'];
const WORD_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'];
const SAFE_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.'];

function parsePattern(pattern: string): PatternNode | undefined {
  const chars = [...pattern];
  let at = 0;
  const fail = (): never => {
    throw new Error('unsupported pattern');
  };

  const escaped = (): string[] => {
    const c = chars[at++] ?? fail();
    if (c === 'd') return DIGITS;
    if (c === 'w') return WORD_CHARS;
    if (c === 's') return [' '];
    if (c === 'D' || c === 'W' || c === 'S') return c === 'D' ? [...'abcxyz'] : c === 'W' ? [...' -.'] : [...'abc'];
    if (/[a-zA-Z0-9]/.test(c)) return c === 'n' ? ['\n'] : c === 't' ? ['\t'] : fail();
    return [c];
  };

  const charClass = (): string[] => {
    const negated = chars[at] === '^';
    if (negated) at++;
    const set: string[] = [];
    for (let first = true; chars[at] !== ']' || first; first = false) {
      if (at >= chars.length) fail();
      const c = chars[at++]!;
      let members: string[];
      if (c === '\\') members = escaped();
      else if (chars[at] === '-' && chars[at + 1] !== undefined && chars[at + 1] !== ']') {
        at++;
        let end = chars[at++]!;
        if (end === '\\') end = escaped()[0]!;
        members = [];
        for (let code = c.codePointAt(0)!; code <= end.codePointAt(0)!; code++)
          members.push(String.fromCodePoint(code));
      } else members = [c];
      set.push(...members);
    }
    at++;
    if (!negated) return set;
    const excluded = new Set(set);
    const rest = SAFE_CHARS.filter((ch) => !excluded.has(ch));
    return rest.length > 0 ? rest : fail();
  };

  const atom = (): PatternNode => {
    const c = chars[at++]!;
    if (c === '(') {
      if (chars[at] === '?') {
        if (chars[at + 1] !== ':') fail();
        at += 2;
      }
      const inner = alternatives();
      if (chars[at++] !== ')') fail();
      return inner;
    }
    if (c === '[') return { kind: 'chars', chars: charClass() };
    if (c === '\\') return { kind: 'chars', chars: escaped() };
    if (c === '.') return { kind: 'chars', chars: SAFE_CHARS };
    if ('*+?{)|'.includes(c)) fail();
    return { kind: 'chars', chars: [c] };
  };

  const quantified = (item: PatternNode): PatternNode => {
    const c = chars[at];
    let min: number;
    let max: number;
    if (c === '?') [min, max] = [0, 1];
    else if (c === '*') [min, max] = [0, 4];
    else if (c === '+') [min, max] = [1, 4];
    else if (c === '{') {
      const close = chars.indexOf('}', at);
      const m = /^\{(\d+)(,(\d*))?\}$/.exec(chars.slice(at, close + 1).join(''));
      if (!m) return fail();
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? min + 4 : Number(m[3]);
      if (min > MAX_PATTERN_COUNT) return fail();
      at = close;
    } else return item;
    at++;
    if (chars[at] === '?') at++;
    return { kind: 'repeat', item, min, max };
  };

  const sequence = (): PatternNode => {
    const items: PatternNode[] = [];
    while (at < chars.length && chars[at] !== '|' && chars[at] !== ')') {
      if (chars[at] === '^' || chars[at] === '$') {
        at++;
        continue;
      }
      items.push(quantified(atom()));
    }
    return { kind: 'sequence', items };
  };

  const alternatives = (): PatternNode => {
    const options = [sequence()];
    while (chars[at] === '|') {
      at++;
      options.push(sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alternatives', options };
  };

  try {
    const tree = alternatives();
    return at === chars.length ? tree : undefined;
  } catch {
    return undefined;
  }
}
