/**
 * A real llama.cpp behind every protocol of serve, checked through the vendors' SDKs (`openai`, and IBM's
 * `@ibm-cloud/watsonx-ai`) and plain requests for Aleph Alpha and Open Inference. The model is the tiny "successor"
 * GGUF the test writes itself (test/helpers/gguf-successor.ts): after any letter comes the next one, after `z` the
 * end of text, so "a" continues with exactly "bcdefghijklmnopqrstuvwxyz" and stops at EOS. Every request that was
 * sent is checked against the protocols' contracts afterwards (test/contract, through test/helpers/wire.ts).
 */
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import { NoAuthAuthenticator } from '@ibm-cloud/watsonx-ai/authentication';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/emulator/core/index.js';
import type { Engine } from '../../src/emulator/engine/engine.js';
import { engineAvailable, successorModelDir, TEST_ENGINE } from '../helpers/llama-engine.js';
import { expectValidWire } from '../helpers/wire.js';

const available = engineAvailable();
const ALPHABET = 'bcdefghijklmnopqrstuvwxyz';
const MODEL = 'successor';

describe.skipIf(!available)('serve with the llama engine, through the SDKs', () => {
  let server: RunningServer;
  let engine: Engine;
  let model: ReturnType<typeof successorModelDir>;
  let openai: OpenAI;
  let wx: WatsonXAI;

  beforeAll(async () => {
    model = successorModelDir();
    const { createLlamaEngine } = await import('../../src/emulator/engine/llama/engine.js');
    engine = await createLlamaEngine({ modelPath: model.path, ...TEST_ENGINE });
    server = await startServer({ requestLog: { max: 1000 }, engine });
    openai = new OpenAI({ apiKey: 'local', baseURL: `${server.url}/v1`, maxRetries: 0 });
    wx = WatsonXAI.newInstance({ serviceUrl: server.url, spaceId: 'sp', authenticator: new NoAuthAuthenticator() });
  });
  afterAll(async () => {
    if (server) {
      await expectValidWire(server.requests);
      await server.close();
    }
    model?.cleanup();
  });

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  };

  it('OpenAI completions: the exact continuation, EOS as "stop", usage from the model tokenizer, true logprobs', async () => {
    const res = await openai.completions.create({
      model: MODEL,
      prompt: 'a',
      max_tokens: 40,
      temperature: 0,
      logprobs: 3,
    });
    const choice = res.choices[0]!;
    expect(choice.text).toBe(ALPHABET);
    expect(choice.finish_reason).toBe('stop');
    const tokenizer = await engine.tokenizer();
    expect(res.usage).toMatchObject({ prompt_tokens: 1, completion_tokens: tokenizer.encode(ALPHABET).length });
    expect(choice.logprobs!.tokens!.join('')).toBe(ALPHABET);
    for (const lp of choice.logprobs!.token_logprobs!) expect(lp).toBeGreaterThan(-0.01);
    expect(Object.keys(choice.logprobs!.top_logprobs![0]!)).toHaveLength(3);
    expect(Object.keys(choice.logprobs!.top_logprobs![0]!)[0]).toBe('b');
  });

  it('OpenAI completions: max_tokens gives "length", a stop sequence cuts the text', async () => {
    const short = await openai.completions.create({ model: MODEL, prompt: 'a', max_tokens: 5, temperature: 0 });
    expect(short.choices[0]).toMatchObject({ text: 'bcdef', finish_reason: 'length' });
    const stopped = await openai.completions.create({
      model: MODEL,
      prompt: 'a',
      max_tokens: 40,
      temperature: 0,
      stop: ['h'],
    });
    expect(stopped.choices[0]).toMatchObject({ text: 'bcdefg', finish_reason: 'stop' });
  });

  it('OpenAI completions: echo with logprobs scores the prompt with the model', async () => {
    const res = await openai.completions.create({
      model: MODEL,
      prompt: 'a b c',
      max_tokens: 1,
      temperature: 0,
      echo: true,
      logprobs: 1,
    });
    const lps = res.choices[0]!.logprobs!.token_logprobs!;
    // "▁a ▁b ▁c": a spaced letter follows a letter with low probability in this model; the values are the model's.
    expect(lps.slice(1, 3).every((lp) => lp !== null && lp < -1)).toBe(true);
  });

  it('a seed reproduces a sample; other seeds give other samples (after "5" the model has no favourite)', async () => {
    const sample = (seed: number) =>
      openai.completions.create({ model: MODEL, prompt: '5', max_tokens: 12, temperature: 2, seed });
    const a = (await sample(7)).choices[0]!.text;
    expect((await sample(7)).choices[0]!.text).toBe(a);
    const others = await Promise.all([1, 2, 3].map(async (s) => (await sample(s)).choices[0]!.text));
    expect(others.some((t) => t !== a)).toBe(true);
  });

  it('OpenAI streams: concurrent streams each get their own tokens, in order', async () => {
    const stream = async (prompt: string) => {
      const s = await openai.completions.create({ model: MODEL, prompt, max_tokens: 40, temperature: 0, stream: true });
      let text = '';
      let finish: string | null | undefined;
      for await (const chunk of s) {
        text += chunk.choices[0]?.text ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      return { text, finish };
    };
    const [a, m, x] = await Promise.all([stream('a'), stream('m'), stream('x')]);
    expect(a).toEqual({ text: ALPHABET, finish: 'stop' });
    expect(m).toEqual({ text: 'nopqrstuvwxyz', finish: 'stop' });
    expect(x).toEqual({ text: 'yz', finish: 'stop' });
  });

  it('OpenAI chat: an answer through the model chat template, usage counted by the model tokenizer', async () => {
    const res = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'a' }],
      max_tokens: 6,
      temperature: 0,
    });
    const choice = res.choices[0]!;
    expect(choice.message.content!.length).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(choice.finish_reason);
    expect(res.usage!.completion_tokens).toBeLessThanOrEqual(6);
    // The Llama 2 template wraps the message: far more prompt tokens than the one letter.
    expect(res.usage!.prompt_tokens).toBeGreaterThan(5);
  });

  it('OpenAI models and embeddings: the served model is listed and embeds', async () => {
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toContain(MODEL);
    const e = await openai.embeddings.create({ model: MODEL, input: ['hello world', 'the test'] });
    expect(e.data).toHaveLength(2);
    expect(e.data[0]!.embedding).toHaveLength(64);
  });

  it('watsonx generateText by model_id and by deployment: exact text, eos_token, counts and logprobs', async () => {
    const parameters = {
      decoding_method: 'greedy',
      max_new_tokens: 40,
      return_options: { generated_tokens: true, token_logprobs: true, top_n_tokens: 2 },
    };
    const byModel = (await wx.generateText({ input: 'a', modelId: MODEL, parameters })).result.results[0]!;
    expect(byModel).toMatchObject({
      generated_text: ALPHABET,
      stop_reason: 'eos_token',
      generated_token_count: 25,
      input_token_count: 1,
    });
    for (const t of byModel.generated_tokens!) expect(t.logprob!).toBeGreaterThan(-0.01);
    const byDeployment = (await wx.deploymentGenerateText({ idOrName: MODEL, input: 'a', parameters })).result
      .results[0]!;
    expect(byDeployment.generated_text).toBe(ALPHABET);
  });

  it('watsonx generateTextStream: the same text in order, the stop reason last', async () => {
    const stream = await wx.generateTextStream({
      input: 'k',
      modelId: MODEL,
      parameters: { decoding_method: 'greedy', max_new_tokens: 5 },
      returnObject: true,
    });
    let text = '';
    let stop: string | undefined;
    for await (const e of stream) {
      text += e.data.results[0]!.generated_text;
      stop = e.data.results[0]!.stop_reason;
    }
    expect(text).toBe('lmnop');
    expect(stop).toBe('max_tokens');
  });

  it('watsonx tokenizeText, embedText and the model list use the model', async () => {
    const tok = (
      await wx.tokenizeText({ modelId: MODEL, input: 'hello world abc', parameters: { return_tokens: true } })
    ).result.result;
    expect(tok.token_count).toBe(5);
    expect(tok.tokens!.join('')).toBe('hello world abc');
    const emb = (await wx.embedText({ modelId: MODEL, inputs: ['hello'] })).result;
    expect(emb.results[0]!.embedding).toHaveLength(64);
    const specs = (await wx.listFoundationModelSpecs({ limit: 200 })).result.resources ?? [];
    expect(specs.map((s) => s.model_id)).toContain(MODEL);
  });

  it('Aleph Alpha complete, tokenize, detokenize and Open Inference generate answer with the model', async () => {
    const aa = await post('/complete', { model: MODEL, prompt: 'a', maximum_tokens: 40 });
    expect(aa.status).toBe(200);
    expect(aa.json.completions[0]).toMatchObject({ completion: ALPHABET, finish_reason: 'end_of_text' });
    const tok = await post('/tokenize', { model: MODEL, prompt: 'hello world abc', tokens: true, token_ids: true });
    expect(tok.json.token_ids).toEqual([357, 361, 328, 261, 262]);
    const detok = await post('/detokenize', { model: MODEL, token_ids: [357, 361, 328, 261, 262] });
    expect(detok.json.result).toBe('hello world abc');
    const oip = await post(`/v2/models/${MODEL}/generate`, { text_input: 'a', parameters: { max_tokens: 3 } });
    expect(oip.json.text_output).toBe('bcd');
  });

  it('min_new_tokens holds back the end of text; a token id outside the vocabulary is a 400', async () => {
    const res = (
      await wx.generateText({
        input: 'y',
        modelId: MODEL,
        parameters: { decoding_method: 'greedy', max_new_tokens: 4, min_new_tokens: 3 },
      })
    ).result.results[0]!;
    expect(res.generated_text.startsWith('z')).toBe(true);
    expect(res.generated_token_count).toBeGreaterThanOrEqual(3);
    const bad = await post('/detokenize', { model: MODEL, token_ids: [99999] });
    expect(bad.status).toBe(400);
  });

  it('time limits, a full context and prompt logprobs (watsonx input_tokens) come from the model run', async () => {
    const gen = async (input: string, parameters: Record<string, unknown>) =>
      (await wx.generateText({ input, modelId: MODEL, parameters: { decoding_method: 'greedy', ...parameters } }))
        .result.results[0]!;
    const timed = await gen('a', { max_new_tokens: 40, time_limit: 1 });
    expect(timed.stop_reason).toBe('time_limit');
    expect(timed.generated_token_count).toBeLessThan(25);
    // 9 alphabets and an "a" are 235 tokens, with BOS 236: the 256-token context fills after "b"…"u".
    const full = await gen(`${'abcdefghijklmnopqrstuvwxyz'.repeat(9)}a`, { max_new_tokens: 40 });
    expect(full.stop_reason).toBe('token_limit');
    expect(full).toMatchObject({ generated_text: 'bcdefghijklmnopqrstu', input_token_count: 235 });
    const scored = await gen('a b', {
      max_new_tokens: 1,
      return_options: { input_tokens: true, token_logprobs: true, token_ranks: true, top_n_tokens: 2 },
    });
    const [a, b] = scored.input_tokens!;
    expect(a!.text).toBe('a');
    expect(b!.text).toBe(' b');
    // After "a" the model expects "b", not " b": a low logprob and a rank below the top, as the model says.
    expect(b!.logprob!).toBeLessThan(-1);
    expect(b!.rank!).toBeGreaterThan(1);
    expect(b!.top_tokens![0]!.text).toBe('b');
  });

  it('Aleph Alpha evaluate scores the expected text with the model', async () => {
    const likely = await post('/evaluate', { model: MODEL, prompt: 'a', completion_expected: 'bcd' });
    expect(likely.status).toBe(200);
    expect(likely.json.result).toMatchObject({ correct_greedy: true, token_count: 3 });
    expect(likely.json.result.log_probability).toBeGreaterThan(-0.03);
    const unlikely = await post('/evaluate', { model: MODEL, prompt: 'a', completion_expected: 'xyz' });
    expect(unlikely.json.result.correct_greedy).toBe(false);
    expect(unlikely.json.result.log_probability).toBeLessThan(-5);
  });
});
