/**
 * Picks one candidate from scored candidates the way a decoder does: greedy takes the best;
 * sampling warps by temperature, filters by top_k / top_p / typical_p and draws.
 */

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
 * The candidates are ranked as indices over one array of logprobs, and the `{ index, logprob }` list is made only
 * when read (alternatives are rarely shown): the same order, sums and draws as ranking the objects themselves.
 */
export function choose(logits: readonly number[], settings: SamplingSettings, draw: () => number): Choice {
  const greedy = settings.greedy || settings.temperature === 0;
  const scale = greedy ? 1 : settings.temperature;
  const logprobs = logSoftmax(logits.map((l) => l / scale));
  // Ties keep candidate order so greedy stays deterministic.
  const order = logprobs.map((_, index) => index).sort((a, b) => logprobs[b]! - logprobs[a]! || a - b);

  const picked = greedy ? order[0]! : sample(filter(order, logprobs, settings), logprobs, draw);
  let ranked: Choice['ranked'] | undefined;
  return {
    index: picked,
    logprob: logprobs[picked]!,
    rank: order.indexOf(picked) + 1,
    get ranked() {
      ranked ??= order.map((index) => ({ index, logprob: logprobs[index]! }));
      return ranked;
    },
  };
}

function logSoftmax(values: readonly number[]): number[] {
  const max = Math.max(...values);
  const sum = values.reduce((acc, v) => acc + Math.exp(v - max), 0);
  const logSum = max + Math.log(sum);
  return values.map((v) => v - logSum);
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
