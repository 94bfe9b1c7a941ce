// toEnd (runToEnd's path: promises only where the generation waits) against iterating the same generation step by
// step: the same summary, every token with its lazily scored alternatives, the same stop reasons.
import { describe, expect, test } from 'vitest';
import type { CanonicalParameters } from '../../src/contract/canonical.js';
import { runToEnd } from '../../src/emulator/engine/engine.js';
import { createEngine } from '../../src/emulator/engine/create.js';
import { startGeneration } from '../../src/emulator/engine/generator.js';
import type { EngineOptions, EngineRequest } from '../../src/emulator/engine/types.js';

const INPUT = 'Write a short note about rivers, bridges and lighthouses.';

async function iterated(request: EngineRequest, options: EngineOptions = {}) {
  const generation = await startGeneration(request, options);
  for await (const step of generation) void step;
  return generation.summary();
}

async function whole(request: EngineRequest, options: EngineOptions = {}) {
  const generation = await startGeneration(request, options);
  return generation.toEnd();
}

// Every lazy getter read: alternatives of prompt and generated tokens, as logprobs/echo answers show them.
const shown = (s: object) => JSON.stringify(s);

describe('toEnd gives what iterating gives', () => {
  test.each<[string, CanonicalParameters]>([
    ['two sampled tokens with a seed (the batch bench)', { random_seed: 11, max_new_tokens: 2 }],
    ['sampling past several turns', { random_seed: 7, max_new_tokens: 100 }],
    ['filtered sampling', { random_seed: 7, max_new_tokens: 40, temperature: 0.7, top_k: 10, top_p: 0.9 }],
    ['greedy with penalties', { decoding_method: 'greedy', max_new_tokens: 70, repetition_penalty: 1.8 }],
    ['a stop sequence', { random_seed: 3, max_new_tokens: 60, stop_sequences: ['.'], include_stop_sequence: true }],
    ['min tokens', { random_seed: 3, max_new_tokens: 80, min_new_tokens: 80 }],
    ['no tokens', { random_seed: 3, max_new_tokens: 0 }],
    ['truncated input', { random_seed: 5, max_new_tokens: 5, truncate_input_tokens: 3 }],
  ])('%s', async (_, parameters) => {
    const request = { input: INPUT, parameters };
    expect(shown(await whole(request))).toBe(shown(await iterated(request)));
  });

  test('with a token delay', async () => {
    const request = { input: INPUT, parameters: { random_seed: 2, max_new_tokens: 4 } };
    expect(shown(await whole(request, { tokenDelayMs: 1 }))).toBe(shown(await iterated(request, { tokenDelayMs: 1 })));
  });

  test('an abort during the token delay ends it cancelled, as iterating does', async () => {
    for (const run of [whole, iterated]) {
      const controller = new AbortController();
      const pending = run(
        { input: INPUT, parameters: { random_seed: 2, max_new_tokens: 4 } },
        { signal: controller.signal, tokenDelayMs: 60_000 },
      );
      setTimeout(() => controller.abort(), 5);
      const summary = await pending;
      expect(summary.stopReason).toBe('cancelled');
      expect(summary.generatedTokenCount).toBe(0);
    }
  });

  test('an aborted signal ends it before the first token', async () => {
    const controller = new AbortController();
    controller.abort();
    const s = await whole({ input: INPUT, parameters: { max_new_tokens: 4 } }, { signal: controller.signal });
    expect(s.stopReason).toBe('cancelled');
  });

  test('a generation runs once, either way', async () => {
    const generation = await startGeneration({ input: INPUT, parameters: { max_new_tokens: 2 } });
    await generation.toEnd();
    expect(() => generation[Symbol.asyncIterator]()).toThrow('only once');
    await expect(generation.toEnd()).rejects.toThrow('only once');
  });

  test('runToEnd takes toEnd on the deterministic engine', async () => {
    const engine = await createEngine(undefined);
    const request = { input: INPUT, parameters: { random_seed: 4, max_new_tokens: 9 } };
    expect(shown(await runToEnd(engine, request))).toBe(shown(await iterated(request)));
  });
});
