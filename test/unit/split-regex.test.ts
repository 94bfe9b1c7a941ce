import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import { compileSplitPattern, splitPiece, toJsPattern, type SplitBehavior } from '../../src/tokenizers/split-regex.js';

describe('Oniguruma split patterns → JavaScript', () => {
  it.each<[string, string]>([
    ["(?i:'s|'t)", "(?:'[sS]|'[tT])"],
    ["'(?i:[sdmt]|ll)", "'(?:[sSdDmMtT]|[lL][lL])"],
    ['[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+', '[^\\r\\n\\p{L}\\p{N}]?\\p{L}+'],
    [' ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*', ' ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*'],
    ['\\p{N}{1,3}+', '\\p{N}{1,3}'],
    ['\\++', '\\++'],
    ['[+]+', '[+]+'],
    ['(?=x)a+?', '(?=x)a+?'],
    ['\\s+(?!\\S)|\\s+', '\\s+(?!\\S)|\\s+'],
  ])('%s → %s', (from, to) => {
    expect(toJsPattern(from)).toBe(to);
  });

  it('(?i:…) matches both cases; letters after it keep their case', () => {
    const re = compileSplitPattern({ Regex: "(?i:'re)|x" }, 'Split');
    expect("THEY'RE they're X x".match(re)).toStrictEqual(["'RE", "'re", 'x']);
  });

  it('a String pattern matches literally', () => {
    expect('a.b.c'.split(compileSplitPattern({ String: '.' }, 'Split'))).toStrictEqual(['a', 'b', 'c']);
  });

  it('a pattern JavaScript cannot run is a usage error naming where it is', () => {
    expect(() => compileSplitPattern({ Regex: '(?<!a+' }, 'Split pre-tokenizer')).toThrow(UsageError);
    expect(() => compileSplitPattern({ Regex: '(?<!a+' }, 'Split pre-tokenizer')).toThrow(
      /Split pre-tokenizer pattern cannot run in JavaScript/,
    );
  });

  it('no pattern at all is a usage error', () => {
    expect(() => compileSplitPattern({}, 'Split pre-tokenizer')).toThrow(/has no Regex or String pattern/);
  });
});

describe('Split behaviours, as in the Hugging Face documentation', () => {
  it.each<[SplitBehavior, boolean, string[]]>([
    ['Isolated', false, ['the', '-', 'final', '-', '-', 'countdown']],
    ['Removed', false, ['the', 'final', 'countdown']],
    ['MergedWithPrevious', false, ['the-', 'final-', '-', 'countdown']],
    ['MergedWithNext', false, ['the', '-final', '-', '-countdown']],
    ['Removed', true, ['-', '-', '-']],
  ])('%s (invert %s)', (behavior, invert, pieces) => {
    expect(splitPiece('the-final--countdown', /-/gu, behavior, invert)).toStrictEqual(pieces);
  });

  it('empty matches split nothing', () => {
    expect(splitPiece('abc', /x*/gu, 'Isolated')).toStrictEqual(['abc']);
  });
});
