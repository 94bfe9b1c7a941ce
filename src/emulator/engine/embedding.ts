/**
 * Deterministic embeddings for the embedded server: each token (and, past the input layer, each pair of neighbouring
 * tokens) is hashed onto a few signed dimensions, and the token vectors are pooled. The same token ids in the same
 * vector space always give the same vector, on every machine; texts sharing tokens point in similar directions, so
 * cosine similarity behaves roughly as users expect. Loaded only by the server (lazily), like the rest of the engine.
 */
import { hashString, mix, unit } from './random.js';

export type PoolingKind = 'mean' | 'weighted_mean' | 'max' | 'last_token' | 'abs_max';

export interface VectorSpace {
  dimensions: number;
  /** Names the space (model, layer, representation): different spaces give unrelated vectors. */
  name: string;
  /** Pairs of neighbouring tokens count too (every layer but the input embeddings). */
  context: boolean;
}

/** Dimensions each feature is spread over. */
const SPREAD = 8;
/** Weight of a neighbour pair against a single token. */
const PAIR_WEIGHT = 0.5;
/** Six decimals keep answers small and still distinguish every feature. */
const SCALE = 1e6;

type Sparse = Map<number, number>;

function addFeature(v: Sparse, space: number, feature: number, weight: number, dimensions: number): void {
  for (let k = 0; k < SPREAD; k++) {
    const h = mix(space, feature, k);
    const dim = h % dimensions;
    const sign = (mix(h, 0x5bd1e995) & 1) === 0 ? 1 : -1;
    v.set(dim, (v.get(dim) ?? 0) + sign * weight * (0.5 + unit(mix(h, 0x27d4eb2d))));
  }
}

function tokenVectors(ids: readonly number[], space: VectorSpace): Sparse[] {
  const s = hashString(`${space.name}/${space.dimensions}`);
  return ids.map((id, i) => {
    const v: Sparse = new Map();
    addFeature(v, s, mix(1, id), 1, space.dimensions);
    if (space.context && i > 0) addFeature(v, s, mix(2, ids[i - 1]!, id), PAIR_WEIGHT, space.dimensions);
    return v;
  });
}

/** One vector for a token sequence, pooled as asked; all zeros for no tokens. */
export function pooledEmbedding(ids: readonly number[], space: VectorSpace, pooling: PoolingKind = 'mean'): number[] {
  const out = new Array<number>(space.dimensions).fill(0);
  const vectors = tokenVectors(ids, space);
  const n = vectors.length;
  if (n === 0) return out;
  switch (pooling) {
    case 'mean':
    case 'weighted_mean': {
      const total = pooling === 'mean' ? n : (n * (n + 1)) / 2;
      vectors.forEach((v, i) => {
        const w = (pooling === 'mean' ? 1 : i + 1) / total;
        for (const [dim, x] of v) out[dim]! += w * x;
      });
      break;
    }
    case 'last_token':
      for (const [dim, x] of vectors[n - 1]!) out[dim] = x;
      break;
    case 'max':
    case 'abs_max': {
      const touched = new Array<number>(space.dimensions).fill(0);
      const best = new Array<number | undefined>(space.dimensions).fill(undefined);
      for (const v of vectors) {
        for (const [dim, x] of v) {
          touched[dim]! += 1;
          const b = best[dim];
          if (b === undefined || (pooling === 'max' ? x > b : Math.abs(x) > Math.abs(b))) best[dim] = x;
        }
      }
      for (let d = 0; d < space.dimensions; d++) {
        const b = best[d];
        if (b === undefined) continue;
        // Tokens that never touch a dimension hold 0 there; for max that 0 beats a negative value.
        out[d] = pooling === 'max' && touched[d]! < n && b < 0 ? 0 : b;
      }
      break;
    }
  }
  return out.map(round);
}

/** Unit length (a zero vector stays zero). */
export function normalized(v: readonly number[]): number[] {
  const norm = Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return norm === 0 ? [...v] : v.map((x) => round(x / norm));
}

function round(x: number): number {
  const r = Math.round(x * SCALE) / SCALE;
  // JSON has no negative zero.
  return r === 0 ? 0 : r;
}
