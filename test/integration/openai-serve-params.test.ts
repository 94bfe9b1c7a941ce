/**
 * What `serve` does with the OpenAI-protocol parameters the OpenAI SDK sends and the seed's document did not have:
 * embeddings `encoding_format` (base64 is the SDK's default) and `dimensions`; completions `seed` and `suffix`;
 * `logprobs: N` alternatives for every token, prompt tokens included under `echo`; and Azure's model listing
 * `GET /openai/models`. The SDK suite (test/sdk/openai-sdk.test.ts) drives the same routes through the SDK itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

const AZURE_VERSION = 'api-version=2024-10-21';

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // eslint-style escape hatch: answers are checked field by field below.
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

function decodeFloat32(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('embeddings: encoding_format and dimensions', () => {
  const routes = [
    ['/v1/embeddings', { model: 'text-embedding-3-small' }],
    [`/openai/deployments/text-embedding-3-small/embeddings?${AZURE_VERSION}`, {}],
  ] as const;

  it.each(routes)('%s: base64 is the float vector as little-endian float32 bytes', async (path, extra) => {
    const input = ['Rivers carry water.', 'Hello'];
    const floats = await post(path, { ...extra, input });
    const base64 = await post(path, { ...extra, input, encoding_format: 'base64' });
    expect(floats.status).toBe(200);
    expect(base64.status).toBe(200);
    for (const i of [0, 1]) {
      const f = floats.json.data[i].embedding as number[];
      const b = base64.json.data[i].embedding as string;
      expect(typeof b).toBe('string');
      const decoded = decodeFloat32(b);
      expect(decoded).toHaveLength(1536);
      expect(decoded).toEqual(f.map(Math.fround));
    }
    expect((await post(path, { ...extra, input, encoding_format: 'float' })).json.data[0].embedding).toEqual(
      floats.json.data[0].embedding,
    );
  });

  it.each(routes)('%s: an unknown encoding_format is a 400 naming it', async (path, extra) => {
    const r = await post(path, { ...extra, input: 'Hi', encoding_format: 'int8' });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain("'encoding_format'");
  });

  it.each(routes)('%s: dimensions gives unit vectors of that size, the same every time', async (path, extra) => {
    const short = await post(path, { ...extra, input: 'Hello', dimensions: 256 });
    expect(short.status).toBe(200);
    const v = short.json.data[0].embedding as number[];
    expect(v).toHaveLength(256);
    expect(norm(v)).toBeCloseTo(1, 5);
    expect((await post(path, { ...extra, input: 'Hello', dimensions: 256 })).json.data[0].embedding).toEqual(v);
    expect((await post(path, { ...extra, input: 'Hello', dimensions: 8 })).json.data[0].embedding).toHaveLength(8);
    const b = await post(path, { ...extra, input: 'Hello', dimensions: 256, encoding_format: 'base64' });
    expect(decodeFloat32(b.json.data[0].embedding as string)).toEqual(v.map(Math.fround));
  });

  it.each([
    [
      'ada-002 refuses dimensions',
      '/v1/embeddings',
      { model: 'text-embedding-ada-002', dimensions: 8 },
      'This model does not support specifying dimensions.',
    ],
    [
      'more than the model has',
      '/v1/embeddings',
      { model: 'text-embedding-3-small', dimensions: 4096 },
      "4096 is greater than the maximum of 1536 - 'dimensions'",
    ],
    [
      'not a positive integer',
      '/v1/embeddings',
      { model: 'text-embedding-3-small', dimensions: 0 },
      "0 is less than the minimum of 1 - 'dimensions'",
    ],
  ])('%s: 400', async (_, path, body, message) => {
    const r = await post(path, { ...body, input: 'Hi' });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toBe(message);
  });
});

describe('completions: seed and suffix', () => {
  const paths = ['/v1/completions', `/openai/deployments/demo/completions?${AZURE_VERSION}`];
  const body = (extra: Record<string, unknown>) => ({
    model: 'gpt-3.5-turbo-instruct',
    prompt: 'Rivers carry',
    max_tokens: 24,
    temperature: 1,
    ...extra,
  });
  const bodyFor = (path: string, extra: Record<string, unknown>) => {
    const b: Record<string, unknown> = body(extra);
    if (path.startsWith('/openai/')) delete b.model;
    return b;
  };

  it.each(paths)('%s: the same seed gives the same text; n seeded choices differ from each other', async (path) => {
    const a = await post(path, bodyFor(path, { seed: 7 }));
    const b = await post(path, bodyFor(path, { seed: 7 }));
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(a.json.choices[0].text).toBe(b.json.choices[0].text);
    const texts = new Set<string>();
    for (const seed of [1, 2, 3, 4])
      texts.add((await post(path, bodyFor(path, { seed }))).json.choices[0].text as string);
    expect(texts.size).toBeGreaterThan(1);
    const n = await post(path, bodyFor(path, { seed: 7, n: 2 }));
    expect(n.json.choices[0].text).toBe(a.json.choices[0].text);
    expect(n.json.choices[1].text).not.toBe(n.json.choices[0].text);
  });

  it.each(paths)('%s: a suffix ends the insertion where it begins, and is not in the text', async (path) => {
    const plain = await post(path, bodyFor(path, { seed: 11 }));
    const text = plain.json.choices[0].text as string;
    const words = text.split(' ').filter((w) => w !== '');
    const suffix = ` ${words[2]}`;
    const cut = text.indexOf(suffix);
    expect(cut).toBeGreaterThan(0);
    const inserted = await post(path, bodyFor(path, { seed: 11, suffix }));
    expect(inserted.status, JSON.stringify(inserted.json)).toBe(200);
    expect(inserted.json.choices[0]).toMatchObject({ text: text.slice(0, cut), finish_reason: 'stop' });
    expect((await post(path, bodyFor(path, { seed: 11, suffix: null }))).json.choices[0].text).toBe(text);
  });

  it('seed and suffix of the wrong type are 400s naming them', async () => {
    expect((await post('/v1/completions', body({ seed: 1.5 }))).json.error.message).toBe(
      "1.5 is not of type 'integer' - 'seed'",
    );
    expect((await post('/v1/completions', body({ suffix: 3 }))).json.error.message).toBe(
      "3 is not of type 'string' - 'suffix'",
    );
  });
});

describe('logprobs: N alternatives for every token', () => {
  it.each([2, 5])(
    'echo with logprobs %i: each prompt token but the first, and each generated token, has that many',
    async (n) => {
      const r = await post('/v1/completions', {
        model: 'gpt-3.5-turbo-instruct',
        prompt: 'The quick brown fox jumps over the lazy dog',
        max_tokens: 12,
        echo: true,
        logprobs: n,
        seed: 3,
      });
      expect(r.status).toBe(200);
      const lp = r.json.choices[0].logprobs as {
        tokens: string[];
        token_logprobs: (number | null)[];
        top_logprobs: (Record<string, number> | null)[];
      };
      expect(lp.top_logprobs[0]).toBeNull();
      expect(lp.token_logprobs[0]).toBeNull();
      expect(lp.tokens.length).toBeGreaterThan(12);
      lp.top_logprobs.slice(1).forEach((top, i) => {
        expect(Object.keys(top!), `token ${i + 1} ${JSON.stringify(lp.tokens[i + 1])}`).toHaveLength(n);
        const probabilities = Object.values(top!).map(Math.exp);
        expect(probabilities.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1 + 1e-4);
      });
    },
  );
});

describe("Azure: GET /openai/models (the AzureOpenAI SDK's models.list)", () => {
  const get = async (path: string) => {
    const res = await fetch(server.url + path);
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  };

  it("lists the models the resource can deploy, in Azure's shape", async () => {
    const r = await get(`/openai/models?${AZURE_VERSION}`);
    expect(r.status).toBe(200);
    expect(r.json.object).toBe('list');
    expect(r.json.data.map((m: { id: string }) => m.id)).toContain('gpt-35-turbo-instruct');
    for (const m of r.json.data) {
      expect(m).toMatchObject({ object: 'model', status: 'succeeded', lifecycle_status: 'generally-available' });
      expect(typeof m.created_at).toBe('number');
      expect(Object.keys(m.capabilities).sort()).toEqual([
        'chat_completion',
        'completion',
        'embeddings',
        'fine_tune',
        'inference',
      ]);
    }
  });

  it('one model by id; an unknown one is 404; no api-version is 400', async () => {
    expect((await get(`/openai/models/text-embedding-3-small?${AZURE_VERSION}`)).json).toMatchObject({
      id: 'text-embedding-3-small',
      capabilities: { embeddings: true },
    });
    const missing = await get(`/openai/models/gpt-99?${AZURE_VERSION}`);
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('ModelNotFound');
    expect((await get('/openai/models')).status).toBe(400);
  });
});
