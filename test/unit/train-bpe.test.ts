import { describe, expect, it } from 'vitest';
import {
  LOCAL_MERGES,
  localCorpus,
  localTokenizer,
  localTokenizerJson,
} from '../../profiles/aleph-alpha/server/tokenizer.js';
import { createByteLevelBpe } from '../../src/tokenizers/byte-level-bpe.js';
import { byteLevelTokenizerJson, trainByteLevelBpe } from '../../src/tokenizers/train-bpe.js';

describe('training a byte-level BPE vocabulary', () => {
  it('merges the most frequent pair first, ties by the smaller pair', () => {
    // Pieces "aa", " aa" twice, " bb" twice: ("a","a") is seen 3 times; then three pairs tie at 2, and "b" < "Ġ" < …
    const trained = trainByteLevelBpe('aa aa aa bb bb', 3);
    expect(trained.merges).toStrictEqual([
      ['a', 'a'],
      ['b', 'b'],
      ['Ġ', 'aa'],
    ]);
    expect(trained.vocab.get('aa')).toBe(256);
    expect(trained.vocab.get('Ġaa')).toBe(258);
  });

  it('stops when no pair is seen twice', () => {
    expect(trainByteLevelBpe('abc', 10).merges).toStrictEqual([]);
  });

  it('is deterministic: the same corpus gives the same tokenizer.json', () => {
    const a = byteLevelTokenizerJson(trainByteLevelBpe(localCorpus(), 50), ['<|endoftext|>']);
    const b = byteLevelTokenizerJson(trainByteLevelBpe(localCorpus(), 50), ['<|endoftext|>']);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('every merge makes a vocabulary token, and the 256 bytes come first', () => {
    const { vocab, merges } = trainByteLevelBpe(localCorpus(), 100);
    expect(merges).toHaveLength(100);
    for (const [a, b] of merges) expect(vocab.has(a + b)).toBe(true);
    expect([...vocab.values()].slice(0, 256)).toStrictEqual([...Array(256).keys()]);
  });

  it('the file reads back into a tokenizer that reproduces the training splits', () => {
    const t = createByteLevelBpe(byteLevelTokenizerJson(trainByteLevelBpe('low lower lowest low low', 20)));
    expect(t.tokenTexts(t.encode(' low'))).toStrictEqual(['Ġlow']);
    expect(t.decode(t.encode('lowest flows'))).toBe('lowest flows');
  });
});

describe('the local Aleph Alpha tokenizer', () => {
  it(`has ${LOCAL_MERGES} merges, the bytes, and <|endoftext|>`, () => {
    const doc = localTokenizerJson() as {
      model: { vocab: Record<string, number>; merges: string[] };
      added_tokens: Array<{ id: number; content: string }>;
    };
    expect(doc.model.merges).toHaveLength(LOCAL_MERGES);
    expect(doc.added_tokens).toStrictEqual([
      expect.objectContaining({ content: '<|endoftext|>', id: Object.keys(doc.model.vocab).length }),
    ]);
  });

  it("tokenizes the engine's words whole", () => {
    const t = localTokenizer();
    expect(t.tokenTexts(t.encode('the quiet river'))).toStrictEqual(['the', 'Ġquiet', 'Ġriver']);
  });

  it('round-trips any text', () => {
    const t = localTokenizer();
    const text = 'An apple a day keeps the doctor away. Grüße 🌍 <|endoftext|>\n\ttabs';
    expect(t.decode(t.encode(text))).toBe(text);
  });
});
