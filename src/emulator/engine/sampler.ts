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

export function choose(logits: readonly number[], settings: SamplingSettings, draw: () => number): Choice {
  const greedy = settings.greedy || settings.temperature === 0;
  const scale = greedy ? 1 : settings.temperature;
  const logprobs = logSoftmax(logits.map((l) => l / scale));
  // Ties keep candidate order so greedy stays deterministic.
  const ranked = logprobs
    .map((logprob, index) => ({ index, logprob }))
    .sort((a, b) => b.logprob - a.logprob || a.index - b.index);

  const picked = greedy ? ranked[0]! : sample(filter(ranked, settings), draw);
  return { index: picked.index, logprob: picked.logprob, rank: ranked.indexOf(picked) + 1, ranked };
}

function logSoftmax(values: readonly number[]): number[] {
  const max = Math.max(...values);
  const sum = values.reduce((acc, v) => acc + Math.exp(v - max), 0);
  const logSum = max + Math.log(sum);
  return values.map((v) => v - logSum);
}

type Ranked = Choice['ranked'][number];

function filter(ranked: Ranked[], s: SamplingSettings): Ranked[] {
  let kept = s.topK !== undefined ? ranked.slice(0, Math.max(1, s.topK)) : ranked;
  if (s.topP !== undefined && s.topP < 1) kept = keepMass(kept, s.topP);
  if (s.typicalP !== undefined && s.typicalP < 1) {
    // Locally typical sampling: prefer candidates whose surprise is close to the entropy.
    const entropy = -ranked.reduce((acc, r) => acc + Math.exp(r.logprob) * r.logprob, 0);
    const byTypicality = [...kept].sort((a, b) => Math.abs(-a.logprob - entropy) - Math.abs(-b.logprob - entropy));
    const typical = new Set(keepMass(byTypicality, s.typicalP));
    kept = kept.filter((r) => typical.has(r));
  }
  return kept;
}

/** The shortest prefix whose probabilities add up to at least `mass` (never empty). */
function keepMass(ordered: Ranked[], mass: number): Ranked[] {
  const out: Ranked[] = [];
  let total = 0;
  for (const r of ordered) {
    out.push(r);
    total += Math.exp(r.logprob);
    if (total >= mass) break;
  }
  return out;
}

function sample(kept: Ranked[], draw: () => number): Ranked {
  const total = kept.reduce((acc, r) => acc + Math.exp(r.logprob), 0);
  let target = draw() * total;
  for (const r of kept) {
    target -= Math.exp(r.logprob);
    if (target < 0) return r;
  }
  return kept[kept.length - 1]!;
}
