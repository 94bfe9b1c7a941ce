/**
 * Picks one candidate from scored candidates the way a decoder does: greedy takes the best;
 * sampling warps by temperature, filters by top_k / top_p / typical_p and draws.
 */
import { withLazy } from '../../contract/lazy-property.js';

export interface SamplingSettings {
  greedy: boolean;
  temperature: number;
  topK?: number | undefined;
  topP?: number | undefined;
  typicalP?: number | undefined;
}

export interface Choice {
  index: number;
  /** Log-probability of the chosen candidate under the temperature-warped distribution. */
  logprob: number;
  /** 1 = the most likely candidate. */
  rank: number;
  /** Every candidate, most likely first, with its log-probability. */
  ranked: { index: number; logprob: number }[];
}

/**
 * The `{ index, logprob }` list is made only when read (alternatives are rarely shown). Greedy takes the first best
 * candidate, and sampling without filters walks the logprobs sorted as plain numbers (sortedDraw); with filters the
 * candidates are ranked as indices. All three give the order, sums and draws of ranking the objects themselves.
 */
export function choose(logits: readonly number[], settings: SamplingSettings, draw: () => number): Choice {
  const greedy = settings.greedy || settings.temperature === 0;
  const scale = greedy ? 1 : settings.temperature;
  const logprobs = scaledLogSoftmax(logits, scale);
  let order: number[] | undefined;
  // Ties keep candidate order so greedy stays deterministic.
  const ranking = (): number[] =>
    (order ??= logprobs.map((_, index) => index).sort((a, b) => logprobs[b]! - logprobs[a]! || a - b));

  let picked: { index: number; rank: number };
  if (greedy) picked = { index: firstBest(logprobs), rank: 1 };
  else if (filtered(settings)) {
    const index = sample(filter(ranking(), logprobs, settings), logprobs, draw);
    picked = { index, rank: ranking().indexOf(index) + 1 };
  } else picked = sortedDraw(logprobs, draw);
  // withLazy, not a literal's getter: see lazy-property.ts (a literal's accessor pins the choice until a full GC).
  return withLazy(
    { index: picked.index, logprob: logprobs[picked.index]!, rank: picked.rank },
    'ranked',
    (): Choice['ranked'] => ranking().map((index) => ({ index, logprob: logprobs[index]! })),
  );
}

function filtered(s: SamplingSettings): boolean {
  return s.topK !== undefined || (s.topP !== undefined && s.topP < 1) || (s.typicalP !== undefined && s.typicalP < 1);
}

/** The first candidate of the highest logprob: the head of the ranking. */
function firstBest(logprobs: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < logprobs.length; i++) if (logprobs[i]! > logprobs[best]!) best = i;
  return best;
}

/**
 * `sample` over every candidate in ranking order, from the logprobs sorted as numbers: the ranking holds the same
 * values in the same order (equal ones by index), so the sum, the walk and the position reached are the same. The
 * candidate at that position is the j-th lowest index of its value, j counted among the equal values before it.
 */
function sortedDraw(logprobs: readonly number[], draw: () => number): { index: number; rank: number } {
  if (scratch.length < logprobs.length) scratch = new Float64Array(Math.max(logprobs.length, scratch.length * 2));
  const ascending = scratch.subarray(0, logprobs.length);
  ascending.set(logprobs);
  ascending.sort();
  const n = ascending.length;
  let total = 0;
  for (let k = n - 1; k >= 0; k--) total += Math.exp(ascending[k]!);
  let target = draw() * total;
  let position = n - 1;
  for (let p = 0; p < n; p++) {
    target -= Math.exp(ascending[n - 1 - p]!);
    if (target < 0) {
      position = p;
      break;
    }
  }
  const value = ascending[n - 1 - position]!;
  let before = 0;
  for (let p = position - 1; p >= 0 && ascending[n - 1 - p]! === value; p--) before++;
  for (let i = 0; i < logprobs.length; i++)
    if (logprobs[i]! === value) {
      if (before === 0) return { index: i, rank: position + 1 };
      before--;
    }
  throw new Error('unreachable: the value drawn is one of the logprobs');
}

/**
 * The sorted copy sortedDraw walks, kept between calls: a new Float64Array of a hundred candidates per word (its
 * backing store outside the heap) cost more than the walk. Each call fills and sorts it before reading it.
 */
let scratch = new Float64Array(256);

/**
 * The log-softmax of `logits / scale` in one array: the same operations in the same order as dividing, then
 * `Math.max`, the sum of exponentials from the first value on and the subtraction, so the same values to the bit.
 */
function scaledLogSoftmax(logits: readonly number[], scale: number): number[] {
  const n = logits.length;
  const out = new Array<number>(n);
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const v = logits[i]! / scale;
    out[i] = v;
    max = Math.max(max, v);
  }
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(out[i]! - max);
  const logSum = max + Math.log(sum);
  for (let i = 0; i < n; i++) out[i] = out[i]! - logSum;
  return out;
}

/** Candidate indices, most likely first, cut by top_k, top_p and typical_p. */
function filter(ranked: number[], logprobs: readonly number[], s: SamplingSettings): number[] {
  let kept = s.topK !== undefined ? ranked.slice(0, Math.max(1, s.topK)) : ranked;
  if (s.topP !== undefined && s.topP < 1) kept = keepMass(kept, logprobs, s.topP);
  if (s.typicalP !== undefined && s.typicalP < 1) {
    // Locally typical sampling: prefer candidates whose surprise is close to the entropy.
    const entropy = -ranked.reduce((acc, r) => acc + Math.exp(logprobs[r]!) * logprobs[r]!, 0);
    const byTypicality = [...kept].sort(
      (a, b) => Math.abs(-logprobs[a]! - entropy) - Math.abs(-logprobs[b]! - entropy),
    );
    const typical = new Set(keepMass(byTypicality, logprobs, s.typicalP));
    kept = kept.filter((r) => typical.has(r));
  }
  return kept;
}

/** The shortest prefix whose probabilities add up to at least `mass` (never empty). */
function keepMass(ordered: number[], logprobs: readonly number[], mass: number): number[] {
  const out: number[] = [];
  let total = 0;
  for (const r of ordered) {
    out.push(r);
    total += Math.exp(logprobs[r]!);
    if (total >= mass) break;
  }
  return out;
}

function sample(kept: number[], logprobs: readonly number[], draw: () => number): number {
  const total = kept.reduce((acc, r) => acc + Math.exp(logprobs[r]!), 0);
  let target = draw() * total;
  for (const r of kept) {
    target -= Math.exp(logprobs[r]!);
    if (target < 0) return r;
  }
  return kept[kept.length - 1]!;
}
