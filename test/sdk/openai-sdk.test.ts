/**
 * OpenAI's own Node SDK (`openai`, its `OpenAI` and `AzureOpenAI` classes) as the oracle for what `textgen serve`
 * answers on the OpenAI wire: every SDK call that maps to an emulated route — completions (plain and streamed, with
 * logprobs, n, echo, stop, seed, suffix), embeddings (the SDK's default base64 and float, `dimensions`), the model
 * lists — against `serve` started in-process on 127.0.0.1 port 0, without and with `--require-auth` (an `api-key`
 * header, and a bearer token). The answers must have the shapes the SDK's TypeScript types declare (checked at run
 * time, field by field) and the right values. docs/sdk-fidelity-openai.md lists the calls and the differences kept.
 */
import OpenAI, { AzureOpenAI, type APIError } from 'openai';
import type { Completion, CompletionChoice } from 'openai/resources/completions';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import type { Model } from 'openai/resources/models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';

const KEY = 'sdk-oracle-key-0123456789';
const AZURE_API_VERSION = '2024-10-21';

let open: RunningServer;
let locked: RunningServer;
beforeAll(async () => {
  [open, locked] = await Promise.all([startServer(), startServer({ requireAuth: true, apiKeys: [KEY] })]);
});
afterAll(async () => {
  await Promise.all([open.close(), locked.close()]);
});

type Flavour = 'openai' | 'azure api-key' | 'azure bearer';

/** A client of each flavour for a server; retries off so a failure shows at once. */
function client(flavour: Flavour, server: RunningServer, key = KEY): OpenAI {
  if (flavour === 'openai') return new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  if (flavour === 'azure api-key')
    return new AzureOpenAI({ apiKey: key, endpoint: server.url, apiVersion: AZURE_API_VERSION, maxRetries: 0 });
  return new AzureOpenAI({
    azureADTokenProvider: async () => key,
    endpoint: server.url,
    apiVersion: AZURE_API_VERSION,
    maxRetries: 0,
  });
}

/** The completion model (OpenAI) or deployment (Azure: the SDK puts `model` in the path). */
const completionModel = (flavour: Flavour) =>
  flavour === 'openai' ? 'gpt-3.5-turbo-instruct' : 'gpt-35-turbo-instruct';

const FINISH: ReadonlySet<string> = new Set(['stop', 'length', 'content_filter']);

/** `Completion` as openai/resources/completions.d.ts declares it, checked at run time. */
function expectCompletion(c: Completion, streamed = false): void {
  expect(typeof c.id).toBe('string');
  expect(c.object).toBe('text_completion');
  expect(Number.isInteger(c.created)).toBe(true);
  expect(typeof c.model).toBe('string');
  expect(Array.isArray(c.choices)).toBe(true);
  for (const choice of c.choices) expectChoice(choice, streamed);
  if (c.usage !== undefined) {
    for (const k of ['completion_tokens', 'prompt_tokens', 'total_tokens'] as const)
      expect(Number.isInteger(c.usage[k]), k).toBe(true);
    expect(c.usage.total_tokens).toBe(c.usage.prompt_tokens + c.usage.completion_tokens);
  }
}

/** A streamed chunk carries `finish_reason: null` until the last one (the type says string: see the docs page). */
function expectChoice(choice: CompletionChoice, streamed = false): void {
  expect(typeof choice.text).toBe('string');
  expect(Number.isInteger(choice.index)).toBe(true);
  if (!(streamed && choice.finish_reason === null))
    expect(FINISH.has(choice.finish_reason), String(choice.finish_reason)).toBe(true);
  if (choice.logprobs !== null) {
    const lp = choice.logprobs;
    const n = lp.tokens!.length;
    for (const k of ['token_logprobs', 'top_logprobs', 'text_offset'] as const) expect(lp[k], k).toHaveLength(n);
    expect(lp.tokens!.every((t) => typeof t === 'string')).toBe(true);
    expect(lp.text_offset!.every((o) => Number.isInteger(o))).toBe(true);
  }
}

function expectEmbeddings(r: CreateEmbeddingResponse, count: number, dimensions: number): void {
  expect(r.object).toBe('list');
  expect(typeof r.model).toBe('string');
  expect(r.data).toHaveLength(count);
  r.data.forEach((d, i) => {
    expect(d).toMatchObject({ object: 'embedding', index: i });
    expect(d.embedding).toHaveLength(dimensions);
    expect(d.embedding.every((x) => typeof x === 'number' && Number.isFinite(x))).toBe(true);
  });
  expect(Number.isInteger(r.usage.prompt_tokens)).toBe(true);
  expect(r.usage.total_tokens).toBe(r.usage.prompt_tokens);
}

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

const FLAVOURS: Flavour[] = ['openai', 'azure api-key', 'azure bearer'];
const SERVERS = [
  ['without --require-auth', () => open],
  ['with --require-auth', () => locked],
] as const;

describe.each(SERVERS)('serve %s', (_, server) => {
  describe.each(FLAVOURS)('%s', (flavour) => {
    const sdk = () => client(flavour, server());
    const model = completionModel(flavour);
    const prompt = 'Rivers carry water to the sea';

    it('completions.create: a seeded completion, the same every time, with usage', async () => {
      const a = await sdk().completions.create({ model, prompt, max_tokens: 24, temperature: 1, seed: 42 });
      expectCompletion(a);
      expect(a.choices).toHaveLength(1);
      expect(a.choices[0]!.logprobs).toBeNull();
      expect(a.choices[0]!.text.length).toBeGreaterThan(0);
      expect(a.usage!.completion_tokens).toBeGreaterThan(0);
      expect(a.usage!.completion_tokens).toBeLessThanOrEqual(24);
      const b = await sdk().completions.create({ model, prompt, max_tokens: 24, temperature: 1, seed: 42 });
      expect(b.choices[0]!.text).toBe(a.choices[0]!.text);
      expect(b.id).not.toBe(a.id);
    });

    it('completions.create: max_tokens reached is finish_reason "length"; n choices indexed 0..n-1', async () => {
      const r = await sdk().completions.create({ model, prompt, max_tokens: 3, temperature: 1, n: 3, seed: 1 });
      expectCompletion(r);
      expect(r.choices.map((c) => c.index)).toEqual([0, 1, 2]);
      for (const c of r.choices) expect(c.finish_reason).toBe('length');
      expect(new Set(r.choices.map((c) => c.text)).size).toBeGreaterThan(1);
    });

    it('completions.create: a stop sequence ends the text before it, finish_reason "stop"', async () => {
      const free = await sdk().completions.create({ model, prompt, max_tokens: 40, temperature: 1, seed: 9 });
      const text = free.choices[0]!.text;
      const stop = text.split(' ').filter((w) => w.length > 2)[2]!;
      const r = await sdk().completions.create({
        model,
        prompt,
        max_tokens: 40,
        temperature: 1,
        seed: 9,
        stop: [stop],
      });
      expect(r.choices[0]!.text).toBe(text.slice(0, text.indexOf(stop)));
      expect(r.choices[0]!.finish_reason).toBe('stop');
    });

    it('completions.create: a suffix ends the insertion where the suffix begins', async () => {
      const free = await sdk().completions.create({ model, prompt, max_tokens: 40, temperature: 1, seed: 5 });
      const text = free.choices[0]!.text;
      const suffix = ` ${text.split(' ').filter((w) => w !== '')[3]!}`;
      const r = await sdk().completions.create({ model, prompt, max_tokens: 40, temperature: 1, seed: 5, suffix });
      expectCompletion(r);
      expect(r.choices[0]!.text).toBe(text.slice(0, text.indexOf(suffix)));
      expect(r.choices[0]!.text).not.toContain(suffix);
    });

    it('completions.create: echo with logprobs 2 — the prompt first, its tokens scored, two alternatives each', async () => {
      const r = await sdk().completions.create({
        model,
        prompt,
        max_tokens: 8,
        temperature: 1,
        seed: 3,
        echo: true,
        logprobs: 2,
      });
      expectCompletion(r);
      const choice = r.choices[0]!;
      expect(choice.text.startsWith(prompt)).toBe(true);
      const lp = choice.logprobs!;
      expect(lp.tokens!.join('')).toBe(choice.text);
      expect(lp.text_offset![0]).toBe(0);
      // The first prompt token has nothing before it to be predicted from: null, as the services send it.
      expect(lp.token_logprobs![0]).toBeNull();
      expect(lp.top_logprobs![0]).toBeNull();
      lp.top_logprobs!.slice(1).forEach((top, i) => {
        expect(Object.keys(top), `token ${i + 1}`).toHaveLength(2);
        expect(lp.token_logprobs![i + 1]).toBeLessThanOrEqual(0);
      });
      const promptTokens = r.usage!.prompt_tokens;
      expect(lp.tokens!.slice(0, promptTokens).join('')).toBe(prompt);
      expect(lp.tokens!.length - promptTokens).toBe(r.usage!.completion_tokens);
    });

    it('completions.create stream: chunks of text_completion that add up to the plain answer, usage last', async () => {
      const plain = await sdk().completions.create({
        model,
        prompt,
        max_tokens: 20,
        temperature: 1,
        seed: 21,
        logprobs: 1,
      });
      const stream = await sdk().completions.create({
        model,
        prompt,
        max_tokens: 20,
        temperature: 1,
        seed: 21,
        logprobs: 1,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      const tokens: string[] = [];
      let finish: string | null = null;
      let usage: Completion['usage'];
      let chunks = 0;
      for await (const chunk of stream) {
        chunks += 1;
        if (chunk.choices.length === 0) {
          // Azure opens with its prompt filter annotation (empty object, created 0); the usage message is last.
          if (chunk.usage) usage = chunk.usage;
          else expect(flavour).not.toBe('openai');
          continue;
        }
        expectCompletion(chunk, true);
        for (const c of chunk.choices) {
          text += c.text;
          tokens.push(...(c.logprobs?.tokens ?? []));
          finish = c.finish_reason ?? finish;
        }
      }
      expect(chunks).toBeGreaterThan(2);
      expect(text).toBe(plain.choices[0]!.text);
      expect(tokens).toEqual(plain.choices[0]!.logprobs!.tokens);
      expect(finish).toBe(plain.choices[0]!.finish_reason);
      expect(usage).toEqual(plain.usage);
    });

    it('completions.create stream with n 2 and echo: each choice starts with the prompt', async () => {
      const stream = await sdk().completions.create({
        model,
        prompt,
        max_tokens: 6,
        temperature: 1,
        seed: 4,
        n: 2,
        echo: true,
        stream: true,
      });
      const texts = ['', ''];
      for await (const chunk of stream) for (const c of chunk.choices) texts[c.index] += c.text;
      for (const t of texts) expect(t.startsWith(prompt)).toBe(true);
      expect(texts[0]).not.toBe(texts[1]);
    });

    it("completions.create: a value out of range is the SDK's BadRequestError with serve's message", async () => {
      const failure = await sdk()
        .completions.create({ model, prompt, temperature: 2.5 })
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      expect((failure as APIError).status).toBe(400);
      expect((failure as APIError).message).toContain("2.5 is greater than the maximum of 2 - 'temperature'");
    });

    const embedModel = 'text-embedding-3-small';

    it("embeddings.create: the SDK's default (base64 on the wire) decodes to the float answer", async () => {
      const input = ['Rivers carry water.', 'Bridges cross rivers.'];
      const decoded = await sdk().embeddings.create({ model: embedModel, input });
      const floats = await sdk().embeddings.create({ model: embedModel, input, encoding_format: 'float' });
      expectEmbeddings(decoded, 2, 1536);
      expectEmbeddings(floats, 2, 1536);
      expect(decoded.data[0]!.embedding.some((x) => x !== 0)).toBe(true);
      for (const i of [0, 1]) expect(decoded.data[i]!.embedding).toEqual(floats.data[i]!.embedding.map(Math.fround));
      expect(norm(floats.data[0]!.embedding)).toBeCloseTo(1, 5);
      expect(decoded.usage).toEqual(floats.usage);
    });

    it('embeddings.create: dimensions gives unit vectors of that size, base64 or float', async () => {
      const r = await sdk().embeddings.create({ model: embedModel, input: 'Hello', dimensions: 256 });
      expectEmbeddings(r, 1, 256);
      expect(norm(r.data[0]!.embedding)).toBeCloseTo(1, 5);
      const floats = await sdk().embeddings.create({
        model: embedModel,
        input: 'Hello',
        dimensions: 256,
        encoding_format: 'float',
      });
      expect(r.data[0]!.embedding).toEqual(floats.data[0]!.embedding.map(Math.fround));
    });

    it('embeddings.create: ada-002 refuses dimensions as OpenAI does', async () => {
      const failure = await sdk()
        .embeddings.create({ model: 'text-embedding-ada-002', input: 'Hello', dimensions: 8 })
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      expect((failure as APIError).message).toContain('This model does not support specifying dimensions.');
    });

    it("models.list: the models, each a Model (OpenAI) or Azure's model record", async () => {
      const ids: string[] = [];
      for await (const m of sdk().models.list()) {
        ids.push(m.id);
        expect(m.object).toBe('model');
        if (flavour === 'openai') {
          const model: Model = m;
          expect(Number.isInteger(model.created)).toBe(true);
          expect(typeof model.owned_by).toBe('string');
        } else {
          // Azure's data plane answers its own record: created_at, status, capabilities (no created/owned_by).
          const azure = m as unknown as { created_at: number; status: string; capabilities: Record<string, boolean> };
          expect(Number.isInteger(azure.created_at)).toBe(true);
          expect(azure.status).toBe('succeeded');
          expect(typeof azure.capabilities.completion).toBe('boolean');
        }
      }
      expect(ids).toContain(flavour === 'openai' ? 'gpt-3.5-turbo-instruct' : 'gpt-35-turbo-instruct');
      expect(ids).toContain(embedModel);
    });

    if (flavour !== 'openai')
      it("models.retrieve: one of Azure's models; an unknown one is the SDK's NotFoundError", async () => {
        const m = await sdk().models.retrieve(embedModel);
        expect(m).toMatchObject({ id: embedModel, object: 'model' });
        const failure = await sdk()
          .models.retrieve('gpt-99')
          .catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
      });
  });
});

describe("serve with --require-auth refuses a wrong credential with the SDK's AuthenticationError", () => {
  it.each(FLAVOURS)('%s', async (flavour) => {
    const sdk = client(flavour, locked, 'not-the-key');
    const calls: Array<() => Promise<unknown>> = [
      () => sdk.completions.create({ model: completionModel(flavour), prompt: 'Hi' }),
      () => sdk.embeddings.create({ model: 'text-embedding-3-small', input: 'Hi' }),
      async () => sdk.models.list(),
    ];
    for (const call of calls) {
      const failure = await call().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((failure as APIError).status).toBe(401);
    }
  });
});
