import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/emulator/engine/engine.js';
import { runToEnd } from '../../src/emulator/engine/engine.js';
import { engineAvailable, successorModelDir, TEST_ENGINE } from '../helpers/llama-engine.js';

const available = engineAvailable();

describe.skipIf(!available)('the llama engine on the successor model', () => {
  let engine: Engine;
  let model: ReturnType<typeof successorModelDir>;
  beforeAll(async () => {
    model = successorModelDir();
    const { createLlamaEngine } = await import('../../src/emulator/engine/llama/engine.js');
    engine = await createLlamaEngine({ modelPath: model.path, ...TEST_ENGINE });
  });
  afterAll(async () => {
    await engine?.close();
    model?.cleanup();
  });

  it('continues the alphabet greedily and stops at EOS', async () => {
    const s = await runToEnd(engine, {
      input: 'a',
      parameters: { decoding_method: 'greedy', max_new_tokens: 50, return_options: { token_logprobs: true } },
    });
    expect(s.generatedText).toBe('bcdefghijklmnopqrstuvwxyz');
    expect(s.stopReason).toBe('eos_token');
    expect(s.generatedTokenCount).toBe(25);
    for (const t of s.generatedTokens) expect(t.logprob!).toBeGreaterThan(-0.01);
    const tokenizer = await engine.tokenizer();
    expect(tokenizer.encode(s.generatedText)).toHaveLength(s.generatedTokenCount);
  });

  it('tokenizes with the model vocabulary', async () => {
    const tokenizer = await engine.tokenizer();
    expect(tokenizer.encode('hello world abc')).toEqual([357, 361, 328, 261, 262]);
    expect(tokenizer.decode([357, 361, 328, 261, 262])).toBe('hello world abc');
    expect(tokenizer.decode(tokenizer.encode('héllo ✓'))).toBe('héllo ✓');
  });

  it('embeds', async () => {
    const r = await engine.embed({ ids: [357, 361], space: { dimensions: 8, name: 'x', context: true } });
    expect(r.ok).toBe(true);
  });
});
