import { describe, expect, it } from 'vitest';
import { BYTE_TO_CHAR } from '../../src/tokenizers/byte-level.js';
import { createByteLevelBpe } from '../../src/tokenizers/byte-level-bpe.js';
import { loadOpenAiTokenizer } from '../../src/tokenizers/openai-tokenizer.js';

/**
 * The strongest check of the tokenizer.json path: a public OpenAI encoding rewritten as a Hugging Face
 * tokenizer.json (the conversion Hugging Face itself uses for tiktoken files: each token's merge is the pair BPE
 * reaches when only lower ranks may merge) must tokenize exactly as gpt-tokenizer does.
 */
type Ranks = readonly (string | readonly number[] | undefined)[];

function tokenizerJsonFromRanks(ranks: Ranks, split: Record<string, unknown>): Record<string, unknown> {
  const utf8 = new TextEncoder();
  const vocab = new Map<string, number>();
  ranks.forEach((entry, id) => {
    if (entry === undefined) return;
    const bytes = typeof entry === 'string' ? utf8.encode(entry) : Uint8Array.from(entry);
    vocab.set(Array.from(bytes, (b) => BYTE_TO_CHAR[b]).join(''), id);
  });
  const merges: string[][] = [];
  for (const [token, rank] of vocab) {
    if ([...token].length < 2) continue;
    let parts = [...token];
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i < parts.length - 1; i++) {
        const r = vocab.get(parts[i]! + parts[i + 1]!);
        if (r !== undefined && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best < 0 || bestRank >= rank) break;
      parts = [...parts.slice(0, best), parts[best]! + parts[best + 1]!, ...parts.slice(best + 2)];
    }
    if (parts.length !== 2) throw new Error(`token ${token} does not come from one merge: ${parts.join(' ')}`);
    merges.push(parts);
  }
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false };
  return {
    model: { type: 'BPE', vocab: Object.fromEntries(vocab), merges, ignore_merges: false },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [{ type: 'Split', pattern: split, behavior: 'Isolated', invert: false }, byteLevel],
    },
    decoder: byteLevel,
  };
}

const TEXT = [
  "Hello world! It's a test: don't panic, we'll see. THEY'RE HERE, I'VE said.",
  'Numbers 1234567 and 3.14159, dates 2024-05-01; code: if (x > 10) { return x*2; }',
  'Grüße aus Köln — 東京は晴れ. Ελληνικά κείμενα. Emoji 👩‍💻🌍 and tabs\tand\n\nnew lines   with   spaces.  ',
].join('\n');

describe('a public encoding as tokenizer.json tokenizes exactly as the encoding', () => {
  it.each([
    // GPT-2's own pattern (r50k_base).
    ['r50k_base', "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"],
    // tiktoken's cl100k_base pattern as published, with `(?i:…)` and possessive quantifiers JavaScript lacks.
    [
      'cl100k_base',
      "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
    ],
  ] as const)('%s', async (encoding, pattern) => {
    const ranks: Ranks = (await import(`gpt-tokenizer/bpeRanks/${encoding}`)).default;
    const fromJson = createByteLevelBpe(tokenizerJsonFromRanks(ranks, { Regex: pattern }));
    const reference = await loadOpenAiTokenizer(encoding);
    const expected = reference.encode(TEXT);
    expect(fromJson.encode(TEXT)).toStrictEqual(expected);
    expect(fromJson.decode(expected)).toBe(TEXT);
  });
});
