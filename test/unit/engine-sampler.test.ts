import { describe, expect, test } from 'vitest';
import { choose, type Choice, type SamplingSettings } from '../../src/emulator/engine/sampler.js';
import { createRng, mix, mix2 } from '../../src/emulator/engine/random.js';

/** choose as it was written before its fast paths: every candidate an object, ranked by a full sort. */
function reference(logits: readonly number[], settings: SamplingSettings, draw: () => number): Choice {
  const greedy = settings.greedy || settings.temperature === 0;
  const scale = greedy ? 1 : settings.temperature;
  const values = logits.map((l) => l / scale);
  const max = Math.max(...values);
  const logSum = max + Math.log(values.reduce((acc, v) => acc + Math.exp(v - max), 0));
  const ranked = values
    .map((v, index) => ({ index, logprob: v - logSum }))
    .sort((a, b) => b.logprob - a.logprob || a.index - b.index);
  type R = (typeof ranked)[number];
  const keepMass = (ordered: R[], mass: number): R[] => {
    const out: R[] = [];
    let total = 0;
    for (const r of ordered) {
      out.push(r);
      total += Math.exp(r.logprob);
      if (total >= mass) break;
    }
    return out;
  };
  let kept = settings.topK !== undefined ? ranked.slice(0, Math.max(1, settings.topK)) : ranked;
  if (settings.topP !== undefined && settings.topP < 1) kept = keepMass(kept, settings.topP);
  if (settings.typicalP !== undefined && settings.typicalP < 1) {
    const entropy = -ranked.reduce((acc, r) => acc + Math.exp(r.logprob) * r.logprob, 0);
    const by = [...kept].sort((a, b) => Math.abs(-a.logprob - entropy) - Math.abs(-b.logprob - entropy));
    const typical = new Set(keepMass(by, settings.typicalP));
    kept = kept.filter((r) => typical.has(r));
  }
  let picked = ranked[0]!;
  if (!greedy) {
    const total = kept.reduce((acc, r) => acc + Math.exp(r.logprob), 0);
    let target = draw() * total;
    picked = kept[kept.length - 1]!;
    for (const r of kept) {
      target -= Math.exp(r.logprob);
      if (target < 0) {
        picked = r;
        break;
      }
    }
  }
  return { index: picked.index, logprob: picked.logprob, rank: ranked.indexOf(picked) + 1, ranked };
}

describe('choose: its fast paths pick as the full ranking does (sampler.ts)', () => {
  const settings: [string, SamplingSettings][] = [
    ['greedy', { greedy: true, temperature: 1 }],
    ['temperature 0', { greedy: false, temperature: 0 }],
    ['sampling', { greedy: false, temperature: 1 }],
    ['sampling hot', { greedy: false, temperature: 1.7 }],
    ['top_k', { greedy: false, temperature: 0.8, topK: 3 }],
    ['top_p', { greedy: false, temperature: 1, topP: 0.6 }],
    ['typical_p', { greedy: false, temperature: 1, typicalP: 0.5 }],
  ];
  test.each(settings)('%s, over logits with many ties', (_, s) => {
    const rng = createRng(42);
    for (let round = 0; round < 400; round++) {
      const n = 1 + Math.floor(rng() * 120);
      // Few distinct values (ties everywhere), and some rounds of continuous ones.
      const logits = Array.from({ length: n }, () => (round % 3 === 0 ? rng() * 8 - 2 : Math.floor(rng() * 4)));
      const seed = Math.floor(rng() * 2 ** 31);
      const got = choose(logits, s, createRng(seed));
      const want = reference(logits, s, createRng(seed));
      expect({ index: got.index, logprob: got.logprob, rank: got.rank }).toEqual({
        index: want.index,
        logprob: want.logprob,
        rank: want.rank,
      });
      expect(got.ranked).toEqual(want.ranked);
    }
  });
});

test('mix2 is mix of two values', () => {
  const rng = createRng(9);
  for (let i = 0; i < 2000; i++) {
    const a = Math.floor(rng() * 2 ** 32) - (i % 2) * 2 ** 31;
    const b = Math.floor(rng() * 2 ** 32);
    expect(mix2(a, b)).toBe(mix(a, b));
  }
});
