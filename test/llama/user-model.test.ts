/**
 * A user's own GGUF model behind serve, when TEXTGEN_GGUF names the file (skipped, saying so, otherwise): the real
 * template, tokenizer and weights through the OpenAI SDK and the watsonx routes. Real models differ, so the checks
 * are what holds for any of them: text comes, greedy decoding repeats itself, logprobs are log-probabilities, counts
 * agree, streams add up to the whole answer. TEXTGEN_GGUF_THREADS sets the threads (default 1).
 */
import { existsSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/emulator/core/index.js';
import { engineAvailable } from '../helpers/llama-engine.js';
import { expectValidWire } from '../helpers/wire.js';

const file = process.env.TEXTGEN_GGUF;
if (!file) console.log('SKIPPED: no user model (set TEXTGEN_GGUF=/path/to/model.gguf to run it)');
else if (!existsSync(file)) throw new Error(`TEXTGEN_GGUF names ${file}, which does not exist`);
const run = file !== undefined && file !== '' && engineAvailable();

describe.skipIf(!run)(`a user model (${file ?? 'TEXTGEN_GGUF unset'})`, () => {
  let server: RunningServer;
  let openai: OpenAI;
  const name = 'user-model';

  beforeAll(async () => {
    const { createLlamaEngine } = await import('../../src/emulator/engine/llama/engine.js');
    const engine = await createLlamaEngine({
      modelPath: file!,
      modelName: name,
      threads: Number(process.env.TEXTGEN_GGUF_THREADS ?? 1),
      contextSize: 2048,
      gpu: 'off',
      parallel: 2,
    });
    server = await startServer({ requestLog: { max: 1000 }, engine });
    openai = new OpenAI({ apiKey: 'local', baseURL: `${server.url}/v1`, maxRetries: 0 });
  }, 300_000);
  afterAll(async () => {
    if (server) {
      await expectValidWire(server.requests);
      await server.close();
    }
  });

  it('completes greedily, the same text twice, with logprobs ≤ 0', { timeout: 300_000 }, async () => {
    const ask = () =>
      openai.completions.create({
        model: name,
        prompt: 'The capital of France is',
        max_tokens: 8,
        temperature: 0,
        logprobs: 2,
      });
    const a = await ask();
    const b = await ask();
    expect(a.choices[0]!.text.length).toBeGreaterThan(0);
    expect(b.choices[0]!.text).toBe(a.choices[0]!.text);
    for (const lp of a.choices[0]!.logprobs!.token_logprobs!) expect(lp!).toBeLessThanOrEqual(0);
    expect(a.usage!.completion_tokens).toBeLessThanOrEqual(8);
  });

  it('chats through the model template; a stream adds up to the whole answer', { timeout: 300_000 }, async () => {
    const messages = [{ role: 'user' as const, content: 'Say hello.' }];
    const whole = await openai.chat.completions.create({ model: name, messages, max_tokens: 12, temperature: 0 });
    const stream = await openai.chat.completions.create({
      model: name,
      messages,
      max_tokens: 12,
      temperature: 0,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(whole.choices[0]!.message.content);
  });

  it('tokenizes with the model tokenizer (watsonx route): the count matches the text round trip', async () => {
    const res = await fetch(`${server.url}/ml/v1/text/tokenization?version=2024-05-01`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model_id: name,
        space_id: 's',
        input: 'Hello world',
        parameters: { return_tokens: true },
      }),
    });
    const body = (await res.json()) as { result: { token_count: number; tokens: string[] } };
    expect(body.result.token_count).toBe(body.result.tokens.length);
    expect(body.result.tokens.join('').trim()).toBe('Hello world');
  });
});
