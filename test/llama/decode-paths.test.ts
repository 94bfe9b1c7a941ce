/**
 * The llama engine's two ways to decode (src/emulator/engine/llama/generation.ts): the fast path lets llama.cpp
 * sample (`sequence.evaluate`), the exact path takes the model's whole distribution per token for true logprobs and
 * textgen's own sampler. Two engines on the same successor model, one forced exact (`decodePath: 'exact'`, what
 * TEXTGEN_LLAMA_DECODE=exact sets for serve), must give the same greedy text under every limit; token scores keep a
 * request on the exact path; a seed repeats a sample on the fast path; and through the built CLI the same command
 * prints the same text with the exact path forced by the environment.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/emulator/engine/engine.js';
import { runToEnd } from '../../src/emulator/engine/engine.js';
import { type RunningServer, startServer } from '../../src/emulator/core/index.js';
import { decodePlan } from '../../src/emulator/engine/llama/generation.js';
import type { CanonicalParameters } from '../../src/contract/canonical.js';
import type { EngineRequest } from '../../src/emulator/engine/types.js';
import { engineAvailable, successorModelDir, TEST_ENGINE } from '../helpers/llama-engine.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

const available = engineAvailable();
const ALPHABET = 'bcdefghijklmnopqrstuvwxyz';

describe('which path a request takes', () => {
  const plan = (parameters: CanonicalParameters, extra: Partial<EngineRequest> = {}) =>
    decodePlan({ input: 'a', parameters, ...extra });
  it('fast without token scores or samplers llama.cpp lacks', () => {
    expect(plan({ decoding_method: 'greedy' })).toEqual({ exactTokens: 0, reason: undefined });
    expect(
      plan({ decoding_method: 'sample', temperature: 0.7, top_k: 5, top_p: 0.9, random_seed: 3 }).exactTokens,
    ).toBe(0);
    expect(plan({ repetition_penalty: 1.3, stop_sequences: ['x'], time_limit: 100 }).exactTokens).toBe(0);
    // typical_p does nothing to greedy decoding.
    expect(plan({ decoding_method: 'greedy', typical_p: 0.5 }).exactTokens).toBe(0);
  });
  it('exact for every token when token scores are asked for, or typical_p', () => {
    for (const return_options of [{ token_logprobs: true }, { token_ranks: true }, { top_n_tokens: 2 }])
      expect(plan({ return_options })).toMatchObject({ exactTokens: Infinity, reason: 'token scores' });
    expect(plan({}, { tokenScores: true })).toMatchObject({ exactTokens: Infinity, reason: 'token scores' });
    expect(plan({ decoding_method: 'sample', typical_p: 0.5 })).toMatchObject({ reason: 'typical_p' });
    expect(decodePlan({ input: 'a' }, 'exact')).toMatchObject({ exactTokens: Infinity, reason: 'forced' });
  });
  it('exact only until min_new_tokens (end-of-generation tokens are held back there)', () => {
    expect(plan({ min_new_tokens: 7 })).toEqual({ exactTokens: 7, reason: 'min_new_tokens' });
  });
  it('generated_tokens without scores (token texts only) stays fast', () => {
    expect(plan({ return_options: { generated_tokens: true, input_text: true } }).exactTokens).toBe(0);
  });
});

describe.skipIf(!available)('the fast and the exact path on the successor model', () => {
  let fast: Engine;
  let exact: Engine;
  let model: ReturnType<typeof successorModelDir>;
  beforeAll(async () => {
    model = successorModelDir();
    const { createLlamaEngine } = await import('../../src/emulator/engine/llama/engine.js');
    fast = await createLlamaEngine({ modelPath: model.path, ...TEST_ENGINE });
    exact = await createLlamaEngine({ modelPath: model.path, ...TEST_ENGINE, decodePath: 'exact' });
  });
  afterAll(async () => {
    await fast?.close();
    await exact?.close();
    model?.cleanup();
  });

  const greedy = (input: string, more: CanonicalParameters = {}): EngineRequest => ({
    input,
    parameters: { decoding_method: 'greedy', max_new_tokens: 40, ...more },
  });

  it.each([
    ['to EOS', greedy('a')],
    ['from mid-alphabet', greedy('hello world m')],
    ['to max_new_tokens', greedy('a', { max_new_tokens: 7 })],
    ['to a stop sequence (kept)', greedy('a', { stop_sequences: ['gh'], include_stop_sequence: true })],
    ['to a stop sequence (left out)', greedy('a', { stop_sequences: ['kl'], include_stop_sequence: false })],
    ['past EOS with min_new_tokens', greedy('a', { min_new_tokens: 30, max_new_tokens: 35 })],
    ['with a repetition penalty', greedy('abc a', { repetition_penalty: 1.8 })],
    ['with temperature 0', { input: 'q', parameters: { temperature: 0, max_new_tokens: 40 } }],
  ])('greedy %s: the same text, tokens and stop reason on both paths', async (_, request) => {
    const a = await runToEnd(fast, request);
    const b = await runToEnd(exact, request);
    expect(a.generatedText).toBe(b.generatedText);
    expect(a.generatedTokens.map((t) => t.id)).toEqual(b.generatedTokens.map((t) => t.id));
    expect(a.stopReason).toBe(b.stopReason);
    expect(a.generatedTokenCount).toBe(b.generatedTokenCount);
    // The exact path's tokens carry true logprobs; the fast path's, past min_new_tokens, none (it never built the map).
    expect(b.generatedTokens.every((t) => t.logprob !== undefined)).toBe(true);
    const exactPart = request.parameters?.min_new_tokens ?? 0;
    expect(a.generatedTokens.slice(exactPart).every((t) => t.logprob === undefined)).toBe(true);
  });

  it('the alphabet, to EOS, fast', async () => {
    const s = await runToEnd(fast, greedy('a'));
    expect(s).toMatchObject({ generatedText: ALPHABET, stopReason: 'eos_token', generatedTokenCount: 25 });
  });

  it('a request with token logprobs takes the exact path: true logprobs, ranks and alternatives, as the exact engine', async () => {
    const request = greedy('a', { return_options: { token_logprobs: true, token_ranks: true, top_n_tokens: 3 } });
    const a = await runToEnd(fast, request);
    const b = await runToEnd(exact, request);
    expect(a.generatedText).toBe(ALPHABET);
    expect(a.generatedTokens).toEqual(b.generatedTokens);
    for (const t of a.generatedTokens) {
      expect(t.logprob).toBeGreaterThan(-0.01);
      expect(t.rank).toBe(1);
      expect(t.topTokens).toHaveLength(5);
    }
    const scored = await runToEnd(fast, { ...greedy('a'), tokenScores: true });
    expect(scored.generatedTokens).toEqual(b.generatedTokens);
  });

  const sampled = (seed: number): EngineRequest => ({
    input: 'a',
    // Temperature 2 halves the successor's 16-nat margin: other tokens get drawn now and then.
    parameters: { decoding_method: 'sample', temperature: 2, random_seed: seed, max_new_tokens: 60 },
  });

  it('seeded sampling on the fast path repeats itself, and another seed draws otherwise', async () => {
    const texts = new Map<number, string>();
    for (const seed of [7, 8, 9, 10]) {
      const first = await runToEnd(fast, sampled(seed));
      const again = await runToEnd(fast, sampled(seed));
      expect(again.generatedText).toBe(first.generatedText);
      expect(again.generatedTokens.map((t) => t.id)).toEqual(first.generatedTokens.map((t) => t.id));
      expect(first.seed).toBe(seed);
      expect(first.generatedTokens.every((t) => t.logprob === undefined)).toBe(true);
      texts.set(seed, first.generatedText);
    }
    expect(new Set(texts.values()).size).toBeGreaterThan(1);
  });

  it('top_k 1 samples greedily on the fast path', async () => {
    const s = await runToEnd(fast, {
      input: 'a',
      parameters: { decoding_method: 'sample', temperature: 2, top_k: 1, random_seed: 5 },
    });
    expect(s.generatedText).toBe(ALPHABET.slice(0, 20));
  });

  it('a cancelled fast generation stops and gives its sequence back', async () => {
    const controller = new AbortController();
    const generation = await fast.startGeneration(greedy('a'), { signal: controller.signal });
    const stops: Array<string | undefined> = [];
    for await (const step of generation) {
      stops.push(step.stopReason);
      controller.abort();
    }
    expect(generation.summary().stopReason).toBe('cancelled');
    expect(generation.summary().generatedTokenCount).toBeLessThan(25);
    // Both sequences of the pool (parallel 2) still serve.
    const both = await Promise.all([runToEnd(fast, greedy('a')), runToEnd(fast, greedy('a'))]);
    expect(both.map((s) => s.generatedText)).toEqual([ALPHABET, ALPHABET]);
  });

  it('time_limit ends a fast generation', async () => {
    let clock = 0;
    const s = await runToEnd(fast, greedy('a', { time_limit: 3 }), { now: () => clock++ });
    expect(s.stopReason).toBe('time_limit');
    expect(s.generatedTokenCount).toBeLessThan(25);
  });
});

describe.skipIf(!available)('serve: every protocol that shows token scores gets true ones from the fast engine', () => {
  let server: RunningServer;
  let model: ReturnType<typeof successorModelDir>;
  beforeAll(async () => {
    model = successorModelDir();
    const { createLlamaEngine } = await import('../../src/emulator/engine/llama/engine.js');
    const engine = await createLlamaEngine({ modelPath: model.path, ...TEST_ENGINE });
    server = await startServer({ engine });
  });
  afterAll(async () => {
    await server?.close();
    model?.cleanup();
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    // any: each protocol's answer is read field by field below.
    return (await res.json()) as any;
  };
  // A true logprob of the successor: just below 0 (the other tokens hold about e^-16 each), never a stand-in 0.
  const trueLogprob = (lp: unknown) => typeof lp === 'number' && lp < 0 && lp > -0.01;

  it('OpenAI completions logprobs', async () => {
    const r = await post('/v1/completions', {
      model: 'successor',
      prompt: 'a',
      max_tokens: 4,
      temperature: 0,
      logprobs: 1,
    });
    expect(r.choices[0].logprobs.token_logprobs.every(trueLogprob)).toBe(true);
  });
  it('OpenAI chat logprobs', async () => {
    const r = await post('/v1/chat/completions', {
      model: 'successor',
      messages: [{ role: 'user', content: 'a' }],
      max_tokens: 3,
      temperature: 0,
      logprobs: true,
    });
    const content = r.choices[0].logprobs.content as Array<{ logprob: number }>;
    expect(content.length).toBeGreaterThan(0);
    for (const t of content) expect(t.logprob).toBeLessThan(0);
  });
  it('Aleph Alpha log_probs', async () => {
    const r = await post('/complete', { model: 'successor', prompt: 'a', maximum_tokens: 4, log_probs: 0 });
    expect(r.completions[0].completion).toBe('bcde');
    const entries = r.completions[0].log_probs as Array<Record<string, number>>;
    expect(entries.map((e) => Object.keys(e))).toEqual([['b'], ['c'], ['d'], ['e']]);
    expect(entries.every((e) => Object.values(e).every(trueLogprob))).toBe(true);
  });
  it('Open Inference details', async () => {
    const r = await post('/v2/models/successor/generate', {
      text_input: 'a',
      parameters: { max_tokens: 4, details: true },
    });
    expect(r.details.logprobs.map((t: { logprob: number }) => t.logprob).every(trueLogprob)).toBe(true);
  });
});

describe.skipIf(!available)('the paths through the built CLI', () => {
  let home: ReturnType<typeof makeHome>;
  let model: ReturnType<typeof successorModelDir>;
  beforeAll(() => {
    home = makeHome();
    model = successorModelDir();
    mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
    writeFileSync(
      join(home.dir, 'config', 'textgen', 'config.yaml'),
      `profiles:\n  l-wx:\n    provider: watsonx\n    engine: llama\n    model_path: ${model.path}\n    threads: 1\n    context_size: 256\n    gpu: 'off'\n`,
    );
  });
  afterAll(() => {
    home?.cleanup();
    model?.cleanup();
  });

  const cli = (args: string[], env: Record<string, string> = {}) =>
    runBin(['--profile', 'l-wx', ...args], { env: { ...home.env, ...env }, timeout: 60_000 });

  // Four runs of the CLI, each loading the model: on a busy machine that is more than the default 30 s.
  it('complete prints the same greedy text on both paths, whole and streamed', { timeout: 180_000 }, async () => {
    for (const stream of ['--no-stream', '--stream']) {
      const args = ['complete', 'hello world c', '--greedy', '--max-tokens', '12', stream];
      const fastRun = await cli(args);
      const exactRun = await cli(args, { TEXTGEN_LLAMA_DECODE: 'exact' });
      expect(fastRun).toMatchObject({ exitCode: 0, stderr: '' });
      expect(exactRun).toMatchObject({ exitCode: 0, stderr: '' });
      expect(fastRun.stdout).toBe(exactRun.stdout);
      expect(fastRun.stdout.trim()).toBe('defghijklmno');
    }
  });

  it('token logprobs asked for on the command line come back true (the exact path)', async () => {
    const args = [
      'deployment',
      'text-generate',
      '--id-or-name',
      'successor',
      '--input',
      'a',
      '--parameters-decoding-method',
      'greedy',
      '--parameters-max-new-tokens',
      '4',
      '--parameters-return-options',
      '{"generated_tokens":true,"token_logprobs":true}',
      '-o',
      'json',
    ];
    const r = await cli(args);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const tokens = JSON.parse(r.stdout).results[0].generated_tokens as Array<{ text: string; logprob: number }>;
    expect(tokens.map((t) => t.text)).toEqual(['b', 'c', 'd', 'e']);
    for (const t of tokens) expect(t.logprob).toBeGreaterThan(-0.01);
    const forced = await cli(args, { TEXTGEN_LLAMA_DECODE: 'exact' });
    expect(JSON.parse(forced.stdout).results[0].generated_tokens).toEqual(tokens);
  });
});
