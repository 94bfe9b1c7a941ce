import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import { loadOpenAiTokenizer } from '../../src/tokenizers/openai-tokenizer.js';
import type { OpenAiEncoding } from '../../src/tokenizers/openai-encodings.js';

describe('offline tokenization equals known token ids of the public encodings', () => {
  it.each<[OpenAiEncoding, string, number[]]>([
    ['r50k_base', 'Hello', [15496]],
    ['r50k_base', 'hello world', [31373, 995]],
    ['p50k_base', 'hello world', [31373, 995]],
    ['cl100k_base', 'hello world', [15339, 1917]],
    ['cl100k_base', 'Hello world', [9906, 1917]],
    ['o200k_base', 'hello world', [24912, 2375]],
    ['o200k_base', 'Hello', [13225]],
  ])('%s: %j → %j', async (encoding, text, ids) => {
    const tokenizer = await loadOpenAiTokenizer(encoding);
    expect(tokenizer.encoding).toBe(encoding);
    expect(tokenizer.encode(text)).toStrictEqual(ids);
    expect(tokenizer.decode(ids)).toBe(text);
  });
});

describe('the OpenAI tokenizer wrapper', () => {
  it('lists each token as its text', async () => {
    const t = await loadOpenAiTokenizer('cl100k_base');
    expect(t.tokenTexts([15339, 1917])).toStrictEqual(['hello', ' world']);
  });

  it('decodes a character split across tokens, and shows the lone pieces as U+FFFD', async () => {
    const t = await loadOpenAiTokenizer('cl100k_base');
    const ids = t.encode('a 🌍 b');
    expect(ids.length).toBeGreaterThan(3);
    expect(t.decode(ids)).toBe('a 🌍 b');
    const texts = t.tokenTexts(ids);
    expect(texts.join('')).toContain('\uFFFD');
  });

  it('a token that ends inside a character does not leak into the next decode', async () => {
    const t = await loadOpenAiTokenizer('cl100k_base');
    const partial = t.encode('🌍')[0] as number;
    t.tokenTexts([partial]);
    t.decode([partial]);
    expect(t.decode([15339])).toBe('hello');
  });

  it('special-token text typed by a user is plain text', async () => {
    const t = await loadOpenAiTokenizer('cl100k_base');
    const ids = t.encode('<|endoftext|>');
    expect(ids.length).toBeGreaterThan(1);
    expect(t.decode(ids)).toBe('<|endoftext|>');
  });

  it('a special token id decodes to its text', async () => {
    const t = await loadOpenAiTokenizer('cl100k_base');
    expect(t.decode([100257])).toBe('<|endoftext|>');
  });

  it.each([-1, 1.5, 10_000_000])('id %s is a usage error naming the encoding', async (id) => {
    const t = await loadOpenAiTokenizer('r50k_base');
    expect(() => t.decode([id])).toThrow(UsageError);
    expect(() => t.decode([id])).toThrow(`token id ${id} is not in r50k_base`);
  });

  it('round-trips text in many scripts in every encoding', async () => {
    const text = 'Grüße aus Köln — 東京は晴れ, Ελληνικά, emoji 👩‍💻 and tabs\tand\nnew lines.';
    for (const encoding of ['r50k_base', 'p50k_base', 'cl100k_base', 'o200k_base'] as const) {
      const t = await loadOpenAiTokenizer(encoding);
      expect(t.decode(t.encode(text)), encoding).toBe(text);
    }
  });
});
