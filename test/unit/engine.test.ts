import { createHash } from 'node:crypto';
import { decode, encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, test } from 'vitest';
import type { CanonicalParameters } from '../../src/contract/canonical.js';
import { DEFAULT_MAX_NEW_TOKENS, generate, startGeneration } from '../../src/emulator/engine/generator.js';
import type { EngineOptions, GenerationStep } from '../../src/emulator/engine/types.js';

const INPUT = 'Write a short note about rivers, bridges and lighthouses.';

async function steps(input: string, parameters: CanonicalParameters, options: EngineOptions = {}) {
  const generation = await startGeneration({ input, parameters }, options);
  const out: GenerationStep[] = [];
  for await (const step of generation) out.push(step);
  return { steps: out, summary: generation.summary() };
}

describe('determinism', () => {
  test.each<[string, CanonicalParameters]>([
    ['sampling with a seed', { random_seed: 7, max_new_tokens: 40 }],
    [
      'sampling with filters',
      { random_seed: 7, max_new_tokens: 40, temperature: 0.7, top_k: 10, top_p: 0.9, typical_p: 0.8 },
    ],
    ['greedy', { decoding_method: 'greedy', max_new_tokens: 40 }],
    [
      'greedy with penalties',
      {
        decoding_method: 'greedy',
        max_new_tokens: 40,
        repetition_penalty: 1.8,
        length_penalty: { decay_factor: 1.5, start_index: 10 },
      },
    ],
  ])('%s: the same input, seed and parameters give the same output', async (_, parameters) => {
    const a = await generate({ input: INPUT, parameters });
    const b = await generate({ input: INPUT, parameters });
    expect(b.generatedText).toBe(a.generatedText);
    expect(b.generatedTokens).toEqual(a.generatedTokens);
    expect(b.stopReason).toBe(a.stopReason);
  });

  test('different seeds give different text', async () => {
    const texts = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = await generate({
        input: INPUT,
        parameters: { random_seed: seed, max_new_tokens: 40, min_new_tokens: 40 },
      });
      texts.add(r.generatedText);
    }
    expect(texts.size).toBe(5);
  });

  test('different inputs give different text', async () => {
    const parameters: CanonicalParameters = { decoding_method: 'greedy', max_new_tokens: 30, min_new_tokens: 30 };
    const a = await generate({ input: 'Tell me about the harbor', parameters });
    const b = await generate({ input: 'Tell me about the mountains', parameters });
    expect(a.generatedText).not.toBe(b.generatedText);
  });

  test('greedy decoding ignores the seed and reports none unless one was given', async () => {
    const none = await generate({ input: INPUT, parameters: { decoding_method: 'greedy', max_new_tokens: 30 } });
    const one = await generate({
      input: INPUT,
      parameters: { decoding_method: 'greedy', max_new_tokens: 30, random_seed: 1 },
    });
    const two = await generate({
      input: INPUT,
      parameters: { decoding_method: 'greedy', max_new_tokens: 30, random_seed: 2 },
    });
    expect(one.generatedText).toBe(none.generatedText);
    expect(two.generatedText).toBe(none.generatedText);
    expect(none.seed).toBeUndefined();
    expect(two.seed).toBe(2);
  });

  test('temperature 0 and top_k 1 pick the most likely word whatever the seed', async () => {
    for (const filter of [{ temperature: 0 }, { top_k: 1 }]) {
      const texts = new Set<string>();
      for (const seed of [1, 2, 3]) {
        texts.add(
          (
            await generate({
              input: INPUT,
              parameters: { ...filter, random_seed: seed, max_new_tokens: 30, min_new_tokens: 30 },
            })
          ).generatedText,
        );
      }
      expect(texts.size).toBe(1);
    }
  });

  test('sampling without a seed picks one, reports it, and that seed reproduces the text', async () => {
    const first = await generate({ input: INPUT, parameters: { max_new_tokens: 30 } });
    expect(first.seed).toBeGreaterThanOrEqual(1);
    const again = await generate({ input: INPUT, parameters: { max_new_tokens: 30, random_seed: first.seed! } });
    expect(again.generatedText).toBe(first.generatedText);
  });

  test('a repetition penalty changes what greedy decoding writes', async () => {
    const plain = await generate({
      input: INPUT,
      parameters: { decoding_method: 'greedy', max_new_tokens: 60, min_new_tokens: 60 },
    });
    const penalised = await generate({
      input: INPUT,
      parameters: { decoding_method: 'greedy', max_new_tokens: 60, min_new_tokens: 60, repetition_penalty: 2 },
    });
    expect(penalised.generatedText).not.toBe(plain.generatedText);
  });
});

describe('text and tokens', () => {
  test('the output reads like sentences of words and punctuation', async () => {
    const r = await generate({ input: INPUT, parameters: { random_seed: 3, max_new_tokens: 80, min_new_tokens: 80 } });
    expect(r.generatedText).toMatch(/^ [A-Z][a-z]+[,;.!]?( [A-Za-z]+[,;.!]?)+$/);
    expect(r.generatedText).toMatch(/[.!] [A-Z]/);
  });

  test('input words shape the output', async () => {
    const seen = new Set<string>();
    for (const seed of [1, 2, 3, 4]) {
      const r = await generate({
        input: 'Describe the lighthouse keeper and the lighthouse',
        parameters: { random_seed: seed, max_new_tokens: 60, min_new_tokens: 60 },
      });
      for (const w of r.generatedText.toLowerCase().match(/[a-z]+/g) ?? []) seen.add(w);
    }
    expect([...seen].some((w) => w === 'lighthouse' || w === 'keeper' || w === 'describe')).toBe(true);
  });

  test('generated tokens are real cl100k_base tokens that spell the text', async () => {
    const r = await generate({ input: INPUT, parameters: { random_seed: 9, max_new_tokens: 50 } });
    expect(r.generatedTokenCount).toBe(r.generatedTokens.length);
    expect(decode(r.generatedTokens.map((t) => t.id))).toBe(r.generatedText);
    for (const t of r.generatedTokens) expect(decode([t.id])).toBe(t.text);
  });

  test('input tokens come from the same tokenizer; the first has no logprob', async () => {
    const r = await generate({ input: INPUT, parameters: { max_new_tokens: 1 } });
    expect(r.inputTokens.map((t) => t.id)).toEqual(encode(INPUT));
    expect(r.inputTokenCount).toBe(encode(INPUT).length);
    expect(r.inputTokens[0]!.logprob).toBeUndefined();
    for (const t of r.inputTokens.slice(1)) {
      expect(t.logprob).toBeLessThan(0);
      expect(t.rank).toBeGreaterThanOrEqual(1);
    }
  });

  test('token data: logprob ≤ 0, rank ≥ 1, up to five top tokens, best first, the chosen one among them at rank 1', async () => {
    const r = await generate({ input: INPUT, parameters: { random_seed: 4, max_new_tokens: 40, temperature: 1.5 } });
    for (const t of r.generatedTokens) {
      expect(t.logprob).toBeLessThanOrEqual(0);
      expect(t.rank).toBeGreaterThanOrEqual(1);
      const top = t.topTokens!;
      expect(top.length).toBeGreaterThanOrEqual(1);
      expect(top.length).toBeLessThanOrEqual(5);
      for (let i = 1; i < top.length; i++) expect(top[i]!.logprob).toBeLessThanOrEqual(top[i - 1]!.logprob);
      if (t.rank === 1) expect(top[0]!.text).toBe(t.text);
    }
    expect(r.generatedTokens.some((t) => t.rank! > 1)).toBe(true);
  });

  test('special-token text in the prompt is read as plain text', async () => {
    const r = await generate({ input: 'before <|endoftext|> after', parameters: { max_new_tokens: 3 } });
    expect(r.inputTokenCount).toBeGreaterThan(3);
  });
});

describe('limits', () => {
  test(`max_new_tokens defaults to ${DEFAULT_MAX_NEW_TOKENS}`, async () => {
    const r = await generate({ input: INPUT, parameters: { random_seed: 1, min_new_tokens: DEFAULT_MAX_NEW_TOKENS } });
    expect(r.generatedTokenCount).toBe(DEFAULT_MAX_NEW_TOKENS);
    expect(r.stopReason).toBe('max_tokens');
  });

  test.each([1, 5, 33])('max_new_tokens %i is never exceeded', async (max) => {
    for (const seed of [1, 2, 3]) {
      const r = await generate({ input: INPUT, parameters: { random_seed: seed, max_new_tokens: max } });
      expect(r.generatedTokenCount).toBeLessThanOrEqual(max);
      expect(['max_tokens', 'eos_token']).toContain(r.stopReason);
      if (r.stopReason === 'max_tokens') expect(r.generatedTokenCount).toBe(max);
    }
  });

  test('max_new_tokens 0 generates nothing and still counts the input', async () => {
    const r = await generate({ input: INPUT, parameters: { max_new_tokens: 0 } });
    expect(r).toMatchObject({
      generatedText: '',
      generatedTokenCount: 0,
      stopReason: 'max_tokens',
      inputTokenCount: encode(INPUT).length,
    });
  });

  test('the text ends by itself after a sentence (eos_token) when the limit allows', async () => {
    const endings: string[] = [];
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const r = await generate({ input: INPUT, parameters: { random_seed: seed, max_new_tokens: 300 } });
      if (r.stopReason === 'eos_token') endings.push(r.generatedText);
    }
    expect(endings.length).toBeGreaterThan(0);
    for (const text of endings) expect(text).toMatch(/[.!]$/);
  });

  test('min_new_tokens holds back the end of text until reached', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const r = await generate({
        input: INPUT,
        parameters: { random_seed: seed, max_new_tokens: 60, min_new_tokens: 60 },
      });
      expect(r.generatedTokenCount).toBe(60);
      expect(r.stopReason).toBe('max_tokens');
    }
  });

  test('truncate_input_tokens keeps the last tokens of the input', async () => {
    const ids = encode(INPUT);
    const r = await generate({ input: INPUT, parameters: { truncate_input_tokens: 5, max_new_tokens: 1 } });
    expect(r.inputTokenCount).toBe(5);
    expect(r.inputText).toBe(decode(ids.slice(-5)));
    expect(r.inputTokens.map((t) => t.id)).toEqual(ids.slice(-5));
  });

  test.each([0, 1000])('truncate_input_tokens %i leaves a shorter input alone', async (truncate) => {
    const r = await generate({ input: INPUT, parameters: { truncate_input_tokens: truncate, max_new_tokens: 1 } });
    expect(r.inputTokenCount).toBe(encode(INPUT).length);
    expect(r.inputText).toBe(INPUT);
  });

  test('time_limit stops with the text so far (fake clock: 10 ms per token)', async () => {
    let clock = 0;
    const now = () => {
      const t = clock;
      clock += 10;
      return t;
    };
    const r = await generate(
      { input: INPUT, parameters: { random_seed: 1, max_new_tokens: 100, min_new_tokens: 100, time_limit: 35 } },
      { now },
    );
    expect(r.stopReason).toBe('time_limit');
    expect(r.generatedTokenCount).toBe(4);
    expect(r.generatedText).toBe(r.generatedTokens.map((t) => t.text).join(''));
  });

  test('time_limit stops a slow generation in real time', async () => {
    const r = await generate(
      { input: INPUT, parameters: { max_new_tokens: 1000, min_new_tokens: 1000, time_limit: 60 } },
      { tokenDelayMs: 10 },
    );
    expect(r.stopReason).toBe('time_limit');
    expect(r.generatedTokenCount).toBeGreaterThan(0);
    // Each token waits at least its 10 ms (a timer may fire up to 1 ms early), so 60 ms allow at most 60 / 9 of them,
    // and a busy machine only fewer: a bound on the count, not on the wall clock.
    expect(r.generatedTokenCount).toBeLessThanOrEqual(Math.ceil(60 / 9));
  });
});

describe('stop sequences', () => {
  test('generation stops at a stop sequence and keeps it by default', async () => {
    const r = await generate({
      input: INPUT,
      parameters: { random_seed: 2, max_new_tokens: 200, min_new_tokens: 1, stop_sequences: ['.'] },
    });
    expect(r.stopReason).toBe('stop_sequence');
    expect(r.generatedText.endsWith('.')).toBe(true);
    expect(r.generatedText.indexOf('.')).toBe(r.generatedText.length - 1);
  });

  test('include_stop_sequence false trims it', async () => {
    const parameters: CanonicalParameters = { random_seed: 2, max_new_tokens: 200, stop_sequences: ['.'] };
    const kept = await generate({ input: INPUT, parameters });
    const trimmed = await generate({ input: INPUT, parameters: { ...parameters, include_stop_sequence: false } });
    expect(trimmed.stopReason).toBe('stop_sequence');
    expect(trimmed.generatedText).toBe(kept.generatedText.slice(0, -1));
  });

  test('a stop sequence across token boundaries is found, and never streamed when it is trimmed', async () => {
    const parameters: CanonicalParameters = { decoding_method: 'greedy', max_new_tokens: 30, min_new_tokens: 30 };
    const free = await generate({ input: INPUT, parameters });
    const [t3, t4] = [free.generatedTokens[3]!.text, free.generatedTokens[4]!.text];
    const stop = t3.slice(-2) + t4.slice(0, 2);
    const expectedEnd = free.generatedText.indexOf(stop);

    for (const include of [true, false]) {
      const { steps: out, summary } = await steps(INPUT, {
        ...parameters,
        min_new_tokens: 0,
        stop_sequences: ['never', stop],
        include_stop_sequence: include,
      });
      expect(summary.stopReason).toBe('stop_sequence');
      expect(summary.generatedText).toBe(
        free.generatedText.slice(0, include ? expectedEnd + stop.length : expectedEnd),
      );
      expect(out.map((s) => s.text).join('')).toBe(summary.generatedText);
      expect(summary.generatedTokenCount).toBe(5);
    }
  });

  test('stop sequences are ignored until min_new_tokens', async () => {
    const r = await generate({
      input: INPUT,
      parameters: { random_seed: 5, max_new_tokens: 300, min_new_tokens: 40, stop_sequences: ['.'] },
    });
    expect(r.generatedTokenCount).toBeGreaterThanOrEqual(40);
    const periods = r.generatedText.split('.').length - 1;
    if (r.stopReason === 'stop_sequence') expect(periods).toBeGreaterThan(1);
    expect(r.generatedText.slice(0, r.generatedText.length - 1)).toContain('.');
  });
});

describe('streaming', () => {
  test('one step per token; the steps spell the text and only the last carries the stop reason', async () => {
    const { steps: out, summary } = await steps(INPUT, { random_seed: 11, max_new_tokens: 25 });
    expect(out.length).toBe(summary.generatedTokenCount);
    expect(out.map((s) => s.text).join('')).toBe(summary.generatedText);
    expect(out.at(-1)!.stopReason).toBe(summary.stopReason);
    expect(out.slice(0, -1).every((s) => s.stopReason === undefined)).toBe(true);
    expect(out.map((s) => s.generatedTokenCount)).toEqual(out.map((_, i) => i + 1));
  });

  test('aborting ends the generation with stop reason cancelled', async () => {
    const controller = new AbortController();
    const generation = await startGeneration(
      { input: INPUT, parameters: { max_new_tokens: 1000, min_new_tokens: 1000 } },
      { signal: controller.signal, tokenDelayMs: 1000 * 60 },
    );
    const seen: GenerationStep[] = [];
    const iterating = (async () => {
      for await (const step of generation) seen.push(step);
    })();
    controller.abort();
    await iterating;
    expect(seen).toEqual([{ token: undefined, text: '', generatedTokenCount: 0, stopReason: 'cancelled' }]);
    expect(generation.summary().stopReason).toBe('cancelled');
  });

  test('the summary is unavailable until the generation has finished', async () => {
    const generation = await startGeneration({ input: INPUT, parameters: { max_new_tokens: 2 } });
    expect(() => generation.summary()).toThrow(/not finished/);
  });
});

describe('moderations', () => {
  test('HAP on the input flags the fixed words with their position', async () => {
    const r = await generate({
      input: 'You are an idiot, friend',
      parameters: { max_new_tokens: 5 },
      moderations: { hap: { input: { enabled: true, threshold: 0.5 } } },
    });
    expect(r.moderations?.hap).toEqual([
      { score: expect.any(Number), input: true, position: { start: 11, end: 16 }, entity: 'has_HAP' },
    ]);
  });

  test('PII on the input flags an e-mail address', async () => {
    const r = await generate({
      input: 'Mail jane.doe@example.com today',
      parameters: { max_new_tokens: 5 },
      moderations: { pii: { input: { enabled: true } } },
    });
    expect(r.moderations?.pii?.[0]).toMatchObject({
      entity: 'EmailAddress',
      input: true,
      word: 'jane.doe@example.com',
      position: { start: 5, end: 25 },
    });
  });

  test.each([
    ['no moderations', undefined],
    ['disabled', { hap: { input: { enabled: false }, output: { enabled: false } } }],
  ])('%s: nothing is reported', async (_, moderations) => {
    const r = await generate({ input: 'You idiot', parameters: { max_new_tokens: 5 }, moderations });
    expect(r.moderations).toBeUndefined();
  });

  test('a threshold above the score lets a word through', async () => {
    const r = await generate({
      input: 'You idiot',
      parameters: { max_new_tokens: 5 },
      moderations: { hap: { input: { threshold: 0.99 } } },
    });
    expect(r.moderations).toEqual({ hap: [] });
  });
});

describe('the engine tokenizer', () => {
  test('a token that ends inside a character leaks nothing into the next decode', async () => {
    const { loadTokenizer } = await import('../../src/emulator/engine/tokenizer.js');
    const t = await loadTokenizer();
    const [partial] = t.encode('🙂');
    expect(t.decode([partial!])).toBe('\uFFFD');
    expect(t.decode(t.encode('hello'))).toBe('hello');
  });
});

describe('top tokens: five alternatives at every scored position, consistent with the token', () => {
  test('every generated token and every prompt token but the first', async () => {
    const summary = await generate({ input: INPUT, parameters: { random_seed: 5, max_new_tokens: 60 } });
    const scored = [...summary.inputTokens.slice(1), ...summary.generatedTokens];
    expect(summary.inputTokens[0]!.topTokens).toBeUndefined();
    for (const token of scored) {
      const top = token.topTokens!;
      const where = JSON.stringify(token);
      expect(top, where).toHaveLength(5);
      expect(new Set(top.map((t) => t.text)).size, where).toBe(5);
      const logprobs = top.map((t) => t.logprob);
      expect(
        [...logprobs].sort((a, b) => b - a),
        where,
      ).toEqual(logprobs);
      expect(
        logprobs.reduce((sum, lp) => sum + Math.exp(lp), 0),
        where,
      ).toBeLessThanOrEqual(1 + 1e-4);
      const above = top.filter((t) => t.logprob > token.logprob!).length;
      if (token.rank! <= 5) {
        expect(top[token.rank! - 1], where).toEqual({ text: token.text, logprob: token.logprob });
        expect(above, where).toBe(token.rank! - 1);
      } else {
        expect(above, where).toBe(5);
      }
    }
  });
});

describe('token scores worked out only when read (lazy-token.ts, sampler.ts)', () => {
  // SHA-256 of the JSON of every prompt and generated token, top tokens included, as the engine gave them before
  // the scores became lazy: reading them later must give the same bytes.
  test.each<[CanonicalParameters, string]>([
    [
      { random_seed: 7, max_new_tokens: 40, temperature: 0.8 },
      '38738fed5367a2324fcdaeec4f8c8872e7a485c86823e9b09affedf15b088b7a',
    ],
    [
      { decoding_method: 'greedy', max_new_tokens: 25, stop_sequences: ['.'] },
      '6feb011476861e543c1b8a16345583452ad58484a63bd3e6236ce6fa50ad6e57',
    ],
  ])('%j: the same tokens and alternatives as computed eagerly', async (parameters, sha) => {
    const summary = await generate({ input: INPUT, parameters });
    const json = JSON.stringify({ input: summary.inputTokens, generated: summary.generatedTokens });
    expect(createHash('sha256').update(json).digest('hex')).toBe(sha);
  });

  test('read in any order, after the generation has moved on, the alternatives are the same', async () => {
    const parameters: CanonicalParameters = { random_seed: 3, max_new_tokens: 30 };
    const inOrder = await generate({ input: INPUT, parameters });
    const expected = JSON.stringify([inOrder.inputTokens, inOrder.generatedTokens]);
    const backwards = await generate({ input: INPUT, parameters });
    for (const token of [...backwards.generatedTokens].reverse()) void token.topTokens;
    for (const token of [...backwards.inputTokens].reverse()) void token.topTokens;
    expect(JSON.stringify([backwards.inputTokens, backwards.generatedTokens])).toBe(expected);
    expect({ ...backwards.generatedTokens[0]! }).toEqual(inOrder.generatedTokens[0]);
  });

  test('an assigned topTokens replaces the lazy one', async () => {
    const summary = await generate({ input: INPUT, parameters: { random_seed: 3, max_new_tokens: 3 } });
    const token = summary.generatedTokens[0]!;
    token.topTokens = [{ text: 'x', logprob: -1 }];
    expect(token.topTokens).toEqual([{ text: 'x', logprob: -1 }]);
    expect(JSON.parse(JSON.stringify(token)).topTokens).toEqual([{ text: 'x', logprob: -1 }]);
  });
});
