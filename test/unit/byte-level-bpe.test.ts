import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import { BYTE_TO_CHAR, CHAR_TO_BYTE, fromByteLevel, toByteLevel } from '../../src/tokenizers/byte-level.js';
import { createByteLevelBpe } from '../../src/tokenizers/byte-level-bpe.js';

const BYTE_LEVEL = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };

/** A tokenizer.json with the 256 byte symbols (id = byte) and the given merges, each adding one token. */
function tinyTokenizer(
  merges: Array<[string, string]>,
  overrides: Record<string, unknown> = {},
  model: Record<string, unknown> = {},
): Record<string, unknown> {
  const vocab: Record<string, number> = {};
  BYTE_TO_CHAR.forEach((c, b) => (vocab[c] = b));
  for (const [a, b] of merges) if (vocab[a + b] === undefined) vocab[a + b] = Object.keys(vocab).length;
  return {
    version: '1.0',
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: BYTE_LEVEL,
    post_processor: null,
    decoder: BYTE_LEVEL,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      vocab,
      merges: merges.map(([a, b]) => `${a} ${b}`),
      ...model,
    },
    ...overrides,
  };
}

describe('the byte-level alphabet', () => {
  it('spells every byte as one distinct character, printable ASCII as itself', () => {
    expect(new Set(BYTE_TO_CHAR).size).toBe(256);
    expect(BYTE_TO_CHAR[0x41]).toBe('A');
    expect(BYTE_TO_CHAR[0x20]).toBe('Ġ');
    expect(BYTE_TO_CHAR[0x0a]).toBe('Ċ');
    expect(CHAR_TO_BYTE.get('Ġ')).toBe(0x20);
  });

  it('round-trips UTF-8 text', () => {
    const text = ' héllo\n🌍';
    expect(toByteLevel(text)).toBe('ĠhÃ©lloĊðŁĮį');
    expect(new TextDecoder().decode(fromByteLevel(toByteLevel(text)))).toBe(text);
  });
});

describe('a byte-level BPE tokenizer from tokenizer.json', () => {
  it('applies merges lowest rank first, per pre-tokenized piece', () => {
    const t = createByteLevelBpe(
      tinyTokenizer([
        ['Ġ', 'l'],
        ['l', 'o'],
        ['Ġl', 'o'],
        ['h', 'e'],
        ['he', 'lo'],
      ]),
    );
    const ids = t.encode('helo lo');
    expect(t.tokenTexts(ids)).toStrictEqual(['helo', 'Ġlo']);
    expect(t.decode(ids)).toBe('helo lo');
  });

  it('a later merge cannot run before an earlier one has made its parts', () => {
    // "ab" then "bc": on "abc" the earlier merge takes the "b", so "bc" never forms.
    const t = createByteLevelBpe(
      tinyTokenizer([
        ['a', 'b'],
        ['b', 'c'],
      ]),
    );
    expect(t.tokenTexts(t.encode('abc'))).toStrictEqual(['ab', 'c']);
    expect(t.tokenTexts(t.encode('bc'))).toStrictEqual(['bc']);
  });

  it('reads merges written as pairs (newer files) the same as "a b" strings', () => {
    const strings = tinyTokenizer([['a', 'b']]);
    const pairs = { ...strings, model: { ...(strings.model as object), merges: [['a', 'b']] } };
    expect(createByteLevelBpe(pairs).encode('abab')).toStrictEqual(createByteLevelBpe(strings).encode('abab'));
  });

  it('ignore_merges takes a piece that is itself in the vocabulary whole', () => {
    const doc = tinyTokenizer([['a', 'b']], {}, { ignore_merges: true });
    (doc.model as { vocab: Record<string, number> }).vocab.abc = 999;
    const t = createByteLevelBpe(doc);
    expect(t.encode('abc')).toStrictEqual([999]);
  });

  it('cuts added tokens out of the text before anything else, and decodes them as their text', () => {
    const t = createByteLevelBpe(
      tinyTokenizer([], { added_tokens: [{ id: 300, content: '<|endoftext|>', special: true }] }),
    );
    const ids = t.encode('a<|endoftext|>b');
    expect(ids).toStrictEqual([0x61, 300, 0x62]);
    expect(t.tokenTexts(ids)).toStrictEqual(['a', '<|endoftext|>', 'b']);
    expect(t.decode(ids)).toBe('a<|endoftext|>b');
  });

  it('add_prefix_space puts a space before the text', () => {
    const t = createByteLevelBpe(
      tinyTokenizer([['Ġ', 'a']], { pre_tokenizer: { ...BYTE_LEVEL, add_prefix_space: true } }),
    );
    expect(t.tokenTexts(t.encode('a'))).toStrictEqual(['Ġa']);
  });

  it('runs a Split regex, then ByteLevel without its own regex (the Llama 3 layout)', () => {
    const t = createByteLevelBpe(
      tinyTokenizer(
        [
          ['1', '2'],
          ['12', '3'],
        ],
        {
          pre_tokenizer: {
            type: 'Sequence',
            pretokenizers: [
              { type: 'Split', pattern: { Regex: '\\p{N}{1,3}' }, behavior: 'Isolated', invert: false },
              { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
            ],
          },
        },
      ),
    );
    expect(t.tokenTexts(t.encode('1234'))).toStrictEqual(['123', '4']);
  });

  it('normalizes before splitting (NFC)', () => {
    const t = createByteLevelBpe(tinyTokenizer([], { normalizer: { type: 'NFC' } }));
    expect(t.decode(t.encode('e\u0301'))).toBe('\u00e9');
  });

  it('decodes bytes of a character split across tokens, and a lone piece as U+FFFD', () => {
    const t = createByteLevelBpe(tinyTokenizer([]));
    const ids = t.encode('🌍');
    expect(ids).toHaveLength(4);
    expect(t.decode(ids)).toBe('🌍');
    expect(t.decode(ids.slice(0, 2))).toBe('\uFFFD');
  });

  it('an id outside the vocabulary is a usage error', () => {
    const t = createByteLevelBpe(tinyTokenizer([]));
    expect(() => t.decode([5000])).toThrow(UsageError);
    expect(() => t.tokenTexts([5000])).toThrow('token id 5000 is not in the tokenizer');
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'a WordPiece model',
      { model: { type: 'WordPiece', vocab: {} } },
      /byte-level BPE tokenizers only; this tokenizer has a WordPiece model/,
    ],
    ['a Unigram model', { model: { type: 'Unigram', vocab: [] } }, /a Unigram model/],
    [
      'a Metaspace pre-tokenizer',
      { pre_tokenizer: { type: 'Metaspace', replacement: '▁' } },
      /a Metaspace pre-tokenizer/,
    ],
    ['no pre-tokenizer', { pre_tokenizer: null }, /no pre-tokenizer/],
    [
      'a Split without ByteLevel',
      { pre_tokenizer: { type: 'Split', pattern: { String: ' ' }, behavior: 'Removed' } },
      /no ByteLevel step/,
    ],
    [
      'a Split with an unknown behaviour',
      { pre_tokenizer: { type: 'Split', pattern: { String: ' ' }, behavior: 'Contiguous' } },
      /behavior "Contiguous"/,
    ],
    ['a WordPiece decoder', { decoder: { type: 'WordPiece' } }, /a WordPiece decoder/],
    ['no decoder', { decoder: null }, /no decoder/],
    ['a Replace normalizer', { normalizer: { type: 'Replace' } }, /a Replace normalizer/],
    ['byte_fallback', { model: { type: 'BPE', vocab: {}, merges: [], byte_fallback: true } }, /byte_fallback/],
    [
      'a subword prefix',
      { model: { type: 'BPE', vocab: {}, merges: [], continuing_subword_prefix: '##' } },
      /continuing_subword_prefix/,
    ],
    [
      'a merge into a missing token',
      { model: { type: 'BPE', vocab: { a: 0, b: 1 }, merges: ['a b'] } },
      /merges "a" and "b" into a token its vocabulary lacks/,
    ],
    ['a broken merge', { model: { type: 'BPE', vocab: {}, merges: [42] } }, /merge 0 is not a pair/],
    ['not an object', { model: 'BPE' }, /no "model"/],
  ])('%s is a clear usage error', (_name, overrides, message) => {
    const doc = { ...tinyTokenizer([]), ...overrides };
    expect(() => createByteLevelBpe(doc)).toThrow(UsageError);
    expect(() => createByteLevelBpe(doc)).toThrow(message);
  });

  it('a document that is not an object is a usage error', () => {
    expect(() => createByteLevelBpe([1, 2])).toThrow('the tokenizer is not a JSON object');
  });
});
