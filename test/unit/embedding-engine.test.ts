import { describe, expect, it } from 'vitest';
import { normalized, pooledEmbedding, type VectorSpace } from '../../src/emulator/engine/embedding.js';
import { loadTokenizer } from '../../src/emulator/engine/tokenizer.js';

const SPACE: VectorSpace = { dimensions: 64, name: 'test', context: false };

function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((s, x, i) => s + x * b[i]!, 0);
  return dot / (Math.hypot(...a) * Math.hypot(...b));
}

describe('local embeddings', () => {
  it('are deterministic: the same ids in the same space give the same vector', () => {
    expect(pooledEmbedding([5, 9, 11], SPACE)).toEqual(pooledEmbedding([5, 9, 11], SPACE));
    expect(pooledEmbedding([5, 9, 11], SPACE)).toHaveLength(64);
  });

  it('differ between vector spaces (model, layer, representation)', () => {
    expect(pooledEmbedding([5, 9], SPACE)).not.toEqual(pooledEmbedding([5, 9], { ...SPACE, name: 'other' }));
    expect(pooledEmbedding([5, 9], SPACE)).not.toEqual(pooledEmbedding([5, 9], { ...SPACE, context: true }));
  });

  it('mean pooling is the average of the token vectors', () => {
    const a = pooledEmbedding([5], SPACE);
    const b = pooledEmbedding([9], SPACE);
    const mean = pooledEmbedding([5, 9], SPACE);
    mean.forEach((x, i) => expect(x).toBeCloseTo((a[i]! + b[i]!) / 2, 5));
  });

  it('weighted mean favours later tokens; last_token is the last token alone (without context)', () => {
    const a = pooledEmbedding([5], SPACE);
    const b = pooledEmbedding([9], SPACE);
    const weighted = pooledEmbedding([5, 9], SPACE, 'weighted_mean');
    weighted.forEach((x, i) => expect(x).toBeCloseTo(a[i]! / 3 + (2 * b[i]!) / 3, 5));
    expect(pooledEmbedding([5, 9], SPACE, 'last_token')).toEqual(b);
  });

  it('max and abs_max count the zeros of tokens that do not touch a dimension', () => {
    const a = pooledEmbedding([5], SPACE);
    const b = pooledEmbedding([9], SPACE);
    const max = pooledEmbedding([5, 9], SPACE, 'max');
    const absMax = pooledEmbedding([5, 9], SPACE, 'abs_max');
    max.forEach((x, i) => expect(x).toBe(Math.max(a[i]!, b[i]!)));
    absMax.forEach((x, i) => expect(Math.abs(x)).toBe(Math.max(Math.abs(a[i]!), Math.abs(b[i]!))));
  });

  it('no tokens give zeros; normalized gives unit length and leaves zeros alone', () => {
    expect(pooledEmbedding([], SPACE)).toEqual(new Array(64).fill(0));
    expect(normalized(new Array(4).fill(0))).toEqual([0, 0, 0, 0]);
    const v = normalized(pooledEmbedding([1, 2, 3], SPACE));
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  });

  it('texts sharing words are closer than unrelated ones', async () => {
    const tokenizer = await loadTokenizer();
    const space: VectorSpace = { dimensions: 384, name: 'similarity', context: true };
    const v = (text: string) => pooledEmbedding(tokenizer.encode(text), space);
    const river = v('rivers run down to the sea');
    expect(cosine(river, v('the rivers run to the sea'))).toBeGreaterThan(
      cosine(river, v('quantum chromodynamics lecture notes')),
    );
  });
});
