import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizer } from '../../src/emulator/engine/tokenizer.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { localTokenizer } from '../../profiles/aleph-alpha/server/tokenizer.js';
import { embeddingsErrorSchema, embeddingsResponseSchema, schemaErrors } from '../contract/azure-embeddings-openapi.js';
import { alephAlphaErrorSchema } from '../contract/aleph-alpha-schemas.js';
import {
  alephAlphaBatchSemanticEmbedResponseSchema,
  alephAlphaEmbedResponseSchema,
  alephAlphaSemanticEmbedResponseSchema,
  watsonxEmbeddingsResponseSchema,
} from '../contract/embed-schemas.js';
import { watsonxErrorSchema } from '../contract/watsonx-schemas.js';

let server: RunningServer;
let guarded: RunningServer;
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 } });
  guarded = await startServer({ requestLog: { max: 1000 }, requireAuth: true });
});
afterAll(async () => {
  await Promise.all([server.close(), guarded.close()]);
});
afterEach(() => {
  server.requests.length = 0;
  server.faults.length = 0;
});

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function post(
  path: string,
  body: unknown,
  opts: { on?: RunningServer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(`${(opts.on ?? server).url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...opts.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

function norm(v: number[]): number {
  return Math.sqrt(v.reduce((s, x) => s + x * x, 0));
}

function valid(
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: unknown } } },
  value: unknown,
): string {
  const r = schema.safeParse(value);
  return r.success ? '' : JSON.stringify(r.error?.issues);
}

const WX = '/ml/v1/text/embeddings?version=2024-05-01';
const wx = (extra: Record<string, unknown> = {}) => ({
  inputs: ['Hello world', 'Rivers run to the sea'],
  model_id: 'ibm/slate-30m-english-rtrvr',
  space_id: 's',
  ...extra,
});

describe('watsonx /ml/v1/text/embeddings', () => {
  it('answers an EmbeddingsResponse: one 384-dimension unit vector per input, token counts summed', async () => {
    const a = await post(WX, wx());
    expect(a.status).toBe(200);
    expect(valid(watsonxEmbeddingsResponseSchema, a.body)).toBe('');
    const results = a.body.results as Array<{ embedding: number[] }>;
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r.embedding).toHaveLength(384);
      expect(norm(r.embedding)).toBeCloseTo(1, 4);
    }
    const tokenizer = await loadTokenizer();
    expect(a.body.input_token_count).toBe(
      tokenizer.encode('Hello world').length + tokenizer.encode('Rivers run to the sea').length,
    );
  });

  it('is deterministic, and each vector depends on its own text only', async () => {
    const a = await post(WX, wx());
    const b = await post(WX, wx({ inputs: ['Rivers run to the sea'] }));
    expect((a.body.results as unknown[])[1]).toEqual((b.body.results as unknown[])[0]);
    expect((await post(WX, wx())).body.results).toEqual(a.body.results);
  });

  it('echoes the inputs with return_options.input_text', async () => {
    const a = await post(WX, wx({ parameters: { return_options: { input_text: true } } }));
    expect((a.body.results as Array<{ input: string }>).map((r) => r.input)).toEqual([
      'Hello world',
      'Rivers run to the sea',
    ]);
  });

  it('truncates long inputs on the right when asked, and refuses them otherwise', async () => {
    const long = 'word '.repeat(700);
    const refused = await post(WX, wx({ inputs: [long] }));
    expect(refused.status).toBe(400);
    expect(valid(watsonxErrorSchema, refused.body)).toBe('');
    expect((refused.body.errors as Array<{ code: string; message: string }>)[0]).toMatchObject({
      code: 'invalid_input_argument',
      message: expect.stringMatching(/truncate_input_tokens/),
    });
    const cut = await post(WX, wx({ inputs: [long], parameters: { truncate_input_tokens: 100 } }));
    expect(cut.status).toBe(200);
    expect(cut.body.input_token_count).toBe(100);
  });

  it.each<[string, unknown, RegExp]>([
    [
      'more than 1000 inputs',
      wx({ inputs: Array.from({ length: 1001 }, () => 'x') }),
      /'inputs' must have at most 1000 items, got 1001/,
    ],
    ['no inputs', { model_id: 'm', space_id: 's' }, /'inputs' is required/],
    ['an empty input', wx({ inputs: ['a', ''] }), /'inputs\[1\]' cannot be empty/],
    ['no model_id', { inputs: ['a'], space_id: 's' }, /'model_id' is required/],
    ['both space and project', wx({ project_id: 'p' }), /exactly one of 'project_id' or 'space_id'/],
    ['an unknown field', wx({ input: 'a' }), /'input' is not a recognized field/],
    [
      'an unknown parameter',
      wx({ parameters: { max_new_tokens: 3 } }),
      /'parameters.max_new_tokens' is not a recognized field/,
    ],
    [
      'a negative truncation',
      wx({ parameters: { truncate_input_tokens: -1 } }),
      /truncate_input_tokens' must be an integer greater than or equal to 0/,
    ],
  ])('%s: 400 json_validation_error naming the field', async (_name, body, message) => {
    const a = await post(WX, body);
    expect(a.status).toBe(400);
    expect(valid(watsonxErrorSchema, a.body)).toBe('');
    const errors = a.body.errors as Array<{ code: string; message: string }>;
    expect(errors[0]!.code).toBe('json_validation_error');
    expect(errors.map((e) => e.message).join('\n')).toMatch(message);
  });

  it('needs the version query parameter', async () => {
    const a = await post('/ml/v1/text/embeddings', wx());
    expect(a.status).toBe(400);
    expect((a.body.errors as Array<{ message: string }>)[0]!.message).toMatch(/Missing query parameter 'version'/);
  });

  it('checks credentials like the generation routes', async () => {
    const a = await post(WX, wx(), { on: guarded });
    expect(a.status).toBe(401);
    expect((a.body.errors as Array<{ code: string }>)[0]!.code).toBe('authorization_rejected');
  });
});

const AZ = '/openai/deployments/text-embedding-ada-002/embeddings?api-version=2022-03-01-preview';

describe('Azure /openai/deployments/{d}/embeddings and /v1/embeddings', () => {
  it('answers the documented list: 1536-dimension unit vectors by index, usage, and apim-request-id', async () => {
    const a = await post(AZ, { input: ['Hello world', 'second'] });
    expect(a.status).toBe(200);
    expect(valid(embeddingsResponseSchema, a.body)).toBe('');
    expect(a.headers.get('apim-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const data = a.body.data as Array<{ index: number; embedding: number[] }>;
    expect(data.map((d) => d.index)).toEqual([0, 1]);
    expect(data[0]!.embedding).toHaveLength(1536);
    expect(norm(data[0]!.embedding)).toBeCloseTo(1, 4);
    expect(a.body.model).toBe('text-embedding-ada-002');
    const tokenizer = await loadTokenizer();
    expect(a.body.usage).toEqual({
      prompt_tokens: tokenizer.encode('Hello world').length + 1,
      total_tokens: tokenizer.encode('Hello world').length + 1,
    });
  });

  it('takes a string, token ids and token-id lists as the OpenAPI document allows, with the same vectors for the same tokens', async () => {
    const tokenizer = await loadTokenizer();
    const ids = tokenizer.encode('Hello world');
    const asString = await post(AZ, { input: 'Hello world' });
    const asIds = await post(AZ, { input: ids });
    const asLists = await post(AZ, { input: [ids, ids] });
    expect(asIds.body.data).toEqual(asString.body.data);
    expect((asLists.body.data as unknown[]).length).toBe(2);
  });

  it('/v1/embeddings routes by the model in the body', async () => {
    const a = await post('/v1/embeddings', { model: 'text-embedding-3-small', input: ['Hello'] });
    expect(a.status).toBe(200);
    expect(valid(embeddingsResponseSchema, a.body)).toBe('');
    expect(a.body.model).toBe('text-embedding-3-small');
    expect(a.headers.get('x-request-id')).toBeTruthy();
  });

  it.each<[string, string, unknown, RegExp]>([
    ['no api-version', '/openai/deployments/d/embeddings', { input: 'a' }, /api-version query parameter/],
    ['no input', AZ, {}, /'input' is a required property/],
    ['an empty string', AZ, { input: '' }, /must not be empty/],
    ['an empty item', AZ, { input: ['a', ''] }, /item 1 is empty/],
    [
      'more than 2048 items',
      AZ,
      { input: Array.from({ length: 2049 }, () => 'a') },
      /holds 2049 items; the maximum is 2048/,
    ],
    ['mixed items', AZ, { input: ['a', 1] }, /expected a string, an array of strings/],
    [
      'a text over 8191 tokens',
      AZ,
      { input: 'word '.repeat(9000) },
      /maximum context length is 8191 tokens, however you requested 9001 tokens/,
    ],
  ])('%s: 400 in the error shape of the document', async (_name, path, body, message) => {
    const a = await post(path, body);
    expect(a.status).toBe(400);
    expect(schemaErrors(embeddingsErrorSchema(), a.body)).toBe('');
    expect((a.body.error as { message: string }).message).toMatch(message);
  });

  it('/v1 words its errors as OpenAI does: message, type, param, code', async () => {
    const a = await post('/v1/embeddings', { input: 'a' });
    expect(a.status).toBe(400);
    expect(a.body).toEqual({
      error: {
        message: 'you must provide a model parameter',
        type: 'invalid_request_error',
        param: 'model',
        code: null,
      },
    });
  });

  it('asks for the api-key when the server requires one', async () => {
    const refused = await post(AZ, { input: 'a' }, { on: guarded });
    expect(refused.status).toBe(401);
    const served = await post(AZ, { input: 'a' }, { on: guarded, headers: { 'api-key': 'local-apikey' } });
    expect(served.status).toBe(200);
  });
});

describe('Aleph Alpha /embed, /semantic_embed, /batch_semantic_embed', () => {
  it('/embed: layer_N (negative layers resolved) → pooling → 5120 numbers; tokens as /tokenize has them', async () => {
    const a = await post('/embed', {
      model: 'luminous-base',
      prompt: 'An apple a day',
      layers: [0, -1],
      pooling: ['mean', 'max', 'last_token'],
      tokens: true,
    });
    expect(a.status).toBe(200);
    expect(valid(alephAlphaEmbedResponseSchema, a.body)).toBe('');
    expect(a.headers.get('x-request-id')).toBeTruthy();
    const embeddings = a.body.embeddings as Record<string, Record<string, number[]>>;
    expect(Object.keys(embeddings)).toEqual(['layer_0', 'layer_40']);
    expect(embeddings.layer_40!.mean).toHaveLength(5120);
    expect(embeddings.layer_0!.mean).not.toEqual(embeddings.layer_40!.mean);
    expect(embeddings.layer_40!.max).not.toEqual(embeddings.layer_40!.mean);
    const ids = localTokenizer().encode('An apple a day');
    expect(a.body.tokens).toEqual(localTokenizer().tokenTexts(ids));
    expect(a.body.num_tokens_prompt_total).toBe(ids.length);
  });

  it('/embed without layers or pooling: the last layer, mean; tokens null; normalize gives unit length', async () => {
    const a = await post('/embed', { model: 'luminous-base', prompt: 'Hello' });
    expect(Object.keys(a.body.embeddings as object)).toEqual(['layer_40']);
    expect(a.body.tokens).toBeNull();
    const plain = (a.body.embeddings as Record<string, Record<string, number[]>>).layer_40!.mean!;
    const unit = (
      (await post('/embed', { model: 'luminous-base', prompt: 'Hello', normalize: true })).body.embeddings as Record<
        string,
        Record<string, number[]>
      >
    ).layer_40!.mean!;
    expect(norm(unit)).toBeCloseTo(1, 4);
    expect(norm(plain)).not.toBeCloseTo(1, 2);
  });

  it('/semantic_embed: 5120 numbers, or 128 with compress_to_size; the representation matters', async () => {
    const full = await post('/semantic_embed', {
      model: 'luminous-base',
      prompt: 'Hello',
      representation: 'symmetric',
    });
    expect(full.status).toBe(200);
    expect(valid(alephAlphaSemanticEmbedResponseSchema, full.body)).toBe('');
    expect(full.body.embedding).toHaveLength(5120);
    const small = await post('/semantic_embed', {
      prompt: 'Hello',
      representation: 'query',
      compress_to_size: 128,
      normalize: true,
    });
    expect(small.body.embedding).toHaveLength(128);
    expect(norm(small.body.embedding as number[])).toBeCloseTo(1, 4);
    const doc = await post('/semantic_embed', {
      prompt: 'Hello',
      representation: 'document',
      compress_to_size: 128,
      normalize: true,
    });
    expect(doc.body.embedding).not.toEqual(small.body.embedding);
  });

  it('/batch_semantic_embed: one vector per prompt, each as /semantic_embed gives it, token counts summed', async () => {
    const prompts = [
      'one river',
      'two mountains',
      [
        { type: 'text', data: 'three ' },
        { type: 'token_ids', data: localTokenizer().encode('seas') },
      ],
    ];
    const a = await post('/batch_semantic_embed', { model: 'luminous-base', prompts, representation: 'document' });
    expect(a.status).toBe(200);
    expect(valid(alephAlphaBatchSemanticEmbedResponseSchema, a.body)).toBe('');
    const single = await post('/semantic_embed', {
      model: 'luminous-base',
      prompt: 'two mountains',
      representation: 'document',
    });
    expect((a.body.embeddings as unknown[])[1]).toEqual(single.body.embedding);
    const t = localTokenizer();
    expect(a.body.num_tokens_prompt_total).toBe(
      t.encode('one river').length +
        t.encode('two mountains').length +
        t.encode('three ').length +
        t.encode('seas').length,
    );
  });

  it('an image counts 144 tokens and changes the vector', async () => {
    const png = (tail: string) => ({
      type: 'image',
      data: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(tail)]).toString(
        'base64',
      ),
    });
    const a = await post('/semantic_embed', {
      prompt: [{ type: 'text', data: 'Hi' }, png('first')],
      representation: 'symmetric',
    });
    expect(a.status).toBe(200);
    expect(a.body.num_tokens_prompt_total).toBe(localTokenizer().encode('Hi').length + 144);
    const b = await post('/semantic_embed', {
      prompt: [{ type: 'text', data: 'Hi' }, png('other')],
      representation: 'symmetric',
    });
    expect(b.body.embedding).not.toEqual(a.body.embedding);
  });

  it.each<[string, string, unknown, number, string, RegExp]>([
    [
      'more than 100 prompts',
      '/batch_semantic_embed',
      { prompts: Array.from({ length: 101 }, () => 'a'), representation: 'query' },
      400,
      'BAD_REQUEST',
      /'prompts' holds 101 prompts; at most 100/,
    ],
    [
      'a layer the model does not have',
      '/embed',
      { model: 'luminous-base', prompt: 'a', layers: [41] },
      400,
      'BAD_REQUEST',
      /layer 41 does not exist: luminous-base has layers 0 to 40/,
    ],
    [
      'an unknown pooling',
      '/embed',
      { model: 'luminous-base', prompt: 'a', pooling: ['median'] },
      400,
      'BAD_REQUEST',
      /'pooling\[0\]' must be one of/,
    ],
    ['no model on /embed', '/embed', { prompt: 'a' }, 400, 'BAD_REQUEST', /'model' is required/],
    [
      'an unknown field',
      '/embed',
      { model: 'luminous-base', prompt: 'a', representation: 'query' },
      400,
      'BAD_REQUEST',
      /unknown field 'representation'/,
    ],
    ['no representation', '/semantic_embed', { prompt: 'a' }, 400, 'BAD_REQUEST', /'representation' is required/],
    [
      'a compression other than 128',
      '/semantic_embed',
      { prompt: 'a', representation: 'query', compress_to_size: 64 },
      400,
      'BAD_REQUEST',
      /'compress_to_size' must be at least 128/,
    ],
    [
      'an empty prompt',
      '/semantic_embed',
      { prompt: '', representation: 'query' },
      400,
      'BAD_REQUEST',
      /'prompt' is empty/,
    ],
    ['an unknown model', '/embed', { model: 'gpt-4', prompt: 'a' }, 404, 'UNKNOWN_MODEL', /Unknown model 'gpt-4'/],
    [
      'a prompt longer than the model',
      '/semantic_embed',
      { prompt: 'river '.repeat(2100), representation: 'query' },
      400,
      'BAD_REQUEST',
      /more than the 2048 tokens of luminous-base/,
    ],
  ])("%s: %s answers the service's error", async (_name, path, body, status, code, message) => {
    const a = await post(path, body);
    expect(a.status).toBe(status);
    expect(valid(alephAlphaErrorSchema, a.body)).toBe('');
    expect(a.body.code).toBe(code);
    expect(a.body.error).toMatch(message);
  });

  it('nice must be true or false; a token is needed when the server requires one', async () => {
    expect((await post('/embed?nice=yes', { model: 'luminous-base', prompt: 'a' })).status).toBe(400);
    expect((await post('/embed?nice=true', { model: 'luminous-base', prompt: 'a' })).status).toBe(200);
    expect((await post('/embed', { model: 'luminous-base', prompt: 'a' }, { on: guarded })).status).toBe(401);
    expect(
      (
        await post(
          '/embed',
          { model: 'luminous-base', prompt: 'a' },
          { on: guarded, headers: { authorization: 'Bearer local-apikey' } },
        )
      ).status,
    ).toBe(200);
  });
});

describe("fault switches reach the embedding routes, in each protocol's words", () => {
  it.each<[string, string, unknown, (body: Record<string, unknown>) => string]>([
    ['watsonx', WX, wx(), (b) => valid(watsonxErrorSchema, b)],
    ['azure', AZ, { input: 'a' }, (b) => schemaErrors(embeddingsErrorSchema(), b)],
    ['aleph-alpha', '/embed', { model: 'luminous-base', prompt: 'a' }, (b) => valid(alephAlphaErrorSchema, b)],
  ])('%s', async (_name, path, body, check) => {
    server.faults.push({ kind: 'status', status: 503, retryAfter: '2' });
    const a = await post(path, body);
    expect(a.status).toBe(503);
    expect(a.headers.get('retry-after')).toBe('2');
    expect(check(a.body)).toBe('');
    expect((await post(path, body)).status).toBe(200);
  });
});
