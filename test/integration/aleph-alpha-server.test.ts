import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SseParser } from '../../src/http/sse-parser.js';
import type { SseEvent } from '../../src/contract/http.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/emulator/core/index.js';
import { alephAlphaProtocol } from '../../profiles/aleph-alpha/server/index.js';
import {
  alephAlphaCompletionRequestSchema,
  alephAlphaCompletionResponseSchema,
  alephAlphaErrorSchema,
  alephAlphaModelsAvailableSchema,
  alephAlphaStreamEventSchema,
} from '../contract/aleph-alpha-schemas.js';

let server: RunningServer;
let options: ServerOptions = {};
beforeEach(async () => {
  server = await startServer({ protocols: [alephAlphaProtocol], ...options });
});
afterEach(async () => {
  await server.close();
});

const BASE = { model: 'luminous-base', prompt: 'An apple a day', maximum_tokens: 12 };

function post(
  body: unknown,
  query = '',
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  if (typeof body === 'object') {
    // Every well-formed request a test sends must be a valid 1.16 request; the ones that test validation are strings or marked.
    const parsed = alephAlphaCompletionRequestSchema.safeParse(body);
    expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
  }
  return fetch(`${server.url}/complete${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** A body the contract rejects, sent as it is. */
const invalid = (body: unknown) => JSON.stringify(body);

async function complete(body: Record<string, unknown>, query = '') {
  const res = await post(body, query);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  return alephAlphaCompletionResponseSchema.parse(await res.json());
}

async function expectError(res: Response, status: number, code: string, message?: RegExp) {
  expect(res.status).toBe(status);
  const body = alephAlphaErrorSchema.parse(await res.json());
  expect(body.code).toBe(code);
  if (message) expect(body.error).toMatch(message);
  return body;
}

/** Reads a stream to its end, or until it breaks; every data line must be [DONE] or a valid event. */
async function readStream(res: Response): Promise<{ events: SseEvent[]; payloads: unknown[]; broken: boolean }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let broken = false;
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read())
      events.push(...parser.push(decoder.decode(r.value, { stream: true })));
    events.push(...parser.end());
  } catch {
    broken = true;
  }
  const payloads = events.map((e) => (e.data === '[DONE]' ? '[DONE]' : (JSON.parse(e.data) as unknown)));
  return { events, payloads, broken };
}

async function stream(body: Record<string, unknown>) {
  const res = await post({ ...body, stream: true }, '', { accept: 'text/event-stream' });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const read = await readStream(res);
  for (const e of read.events) {
    // Data-only SSE: no event names, no ids.
    expect(e.event).toBe('message');
    expect(e.id).toBeUndefined();
  }
  for (const p of read.payloads) if (p !== '[DONE]') alephAlphaStreamEventSchema.parse(p);
  return read;
}

type Chunk = {
  type: 'stream_chunk';
  index: number;
  completion: string;
  completion_tokens?: string[];
  log_probs?: Array<Record<string, number>>;
};
const chunks = (payloads: unknown[], index = 0) =>
  payloads.filter((p): p is Chunk => (p as Chunk).type === 'stream_chunk' && (p as Chunk).index === index);
const types = (payloads: unknown[]) =>
  payloads.map((p) => (p === '[DONE]' ? '[DONE]' : ((p as { type?: string }).type ?? 'error')));

describe('POST /complete', () => {
  test('answers a CompletionResponse that validates, with a request id', async () => {
    const res = await post(BASE);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const body = alephAlphaCompletionResponseSchema.parse(await res.json());
    expect(body.model_version).toBe('2022-04');
    expect(body.completions).toHaveLength(1);
    expect(['maximum_tokens', 'end_of_text']).toContain(body.completions[0]!.finish_reason);
    expect(body.num_tokens_prompt_total).toBe(4);
    expect(body.num_tokens_generated).toBeGreaterThan(0);
    expect(body.num_tokens_generated).toBeLessThanOrEqual(12);
  });

  test('the default temperature is argmax: the same answer twice', async () => {
    const a = await complete(BASE);
    const b = await complete(BASE);
    expect(b.completions[0]!.completion).toBe(a.completions[0]!.completion);
  });

  test('maximum_tokens 0 generates nothing', async () => {
    const body = await complete({ ...BASE, maximum_tokens: 0 });
    expect(body.completions[0]).toMatchObject({ completion: '', finish_reason: 'maximum_tokens' });
    expect(body.num_tokens_generated).toBe(0);
  });

  test('minimum_tokens equal to maximum_tokens generates exactly that many', async () => {
    const body = await complete({ ...BASE, maximum_tokens: 9, minimum_tokens: 9, tokens: true });
    expect(body.num_tokens_generated).toBe(9);
    expect(body.completions[0]!.finish_reason).toBe('maximum_tokens');
  });

  test('echo, log_probs and tokens: the prompt first, one dictionary per token ({} for the first), raw_completion', async () => {
    const body = await complete({ ...BASE, echo: true, log_probs: 2, tokens: true });
    const c = body.completions[0]!;
    expect(c.completion.startsWith('An apple a day')).toBe(true);
    expect(c.completion_tokens!.join('')).toBe(c.completion);
    expect(c.log_probs).toHaveLength(c.completion_tokens!.length);
    expect(c.log_probs![0]).toEqual({});
    for (const [i, entry] of c.log_probs!.entries()) {
      if (i === 0) continue;
      expect(entry![c.completion_tokens![i]!]).toBeLessThanOrEqual(0);
      expect(Object.keys(entry!).length).toBeLessThanOrEqual(3);
    }
    expect(c.raw_completion).toBe(c.completion);
  });

  test("log_probs 0: only the sampled token's probability", async () => {
    const c = (await complete({ ...BASE, log_probs: 0, tokens: true })).completions[0]!;
    for (const [i, entry] of c.log_probs!.entries()) expect(Object.keys(entry!)).toEqual([c.completion_tokens![i]]);
  });

  test('without token options there is no token data', async () => {
    const c = (await complete(BASE)).completions[0]!;
    expect(c).not.toHaveProperty('log_probs');
    expect(c).not.toHaveProperty('completion_tokens');
    expect(c).not.toHaveProperty('raw_completion');
  });

  test('a stop sequence ends the completion, and is left out of it', async () => {
    const full = (await complete({ ...BASE, maximum_tokens: 30, tokens: true })).completions[0]!;
    const stop = full.completion_tokens![Math.floor(full.completion_tokens!.length / 2)]!;
    const cut = full.completion.indexOf(stop);
    const c = (await complete({ ...BASE, maximum_tokens: 30, stop_sequences: [stop], tokens: true })).completions[0]!;
    expect(c.finish_reason).toBe('stop_sequence_reached');
    expect(c.completion).toBe(full.completion.slice(0, cut));
    expect(c.completion_tokens!.join('')).toBe(c.completion);
  });

  test('n completions: token counts summed over them', async () => {
    const body = await complete({ ...BASE, n: 3, temperature: 1, tokens: true });
    expect(body.completions).toHaveLength(3);
    expect(body.num_tokens_prompt_total).toBe(3 * 4);
    expect(body.num_tokens_generated).toBe(body.completions.reduce((sum, c) => sum + c.completion_tokens!.length, 0));
  });

  test('best_of: n completions come back, prompt tokens counted for every candidate', async () => {
    const body = await complete({ ...BASE, best_of: 3, temperature: 1 });
    expect(body.completions).toHaveLength(1);
    expect(body.num_tokens_prompt_total).toBe(3 * 4);
  });

  test('a multimodal prompt: text and token ids are read, each image counts 144 tokens', async () => {
    const prompt = [
      { type: 'text', data: 'An apple' },
      { type: 'token_ids', data: [264, 1938] },
      { type: 'image', data: 'aGVsbG8=' },
    ];
    const body = await complete({ ...BASE, prompt, echo: true });
    expect(body.completions[0]!.completion.startsWith('An apple a day')).toBe(true);
    expect(body.num_tokens_prompt_total).toBe(4 + 144);
  });

  test('hosting "aleph-alpha" or null, nice=true and the ignored penalty fields are accepted', async () => {
    await complete(
      { ...BASE, hosting: 'aleph-alpha', presence_penalty: 0.5, disable_optimizations: true },
      '?nice=true',
    );
    await complete({ ...BASE, hosting: null }, '?nice=false');
  });

  test('any model name ending in -local is served, with a larger context', async () => {
    await complete({ ...BASE, model: 'tiny-local', maximum_tokens: 3000, stop_sequences: ['.'] });
  });
});

describe('validation, as the service does it', () => {
  test.each<[string, string, string, RegExp]>([
    [
      'maximum_tokens missing (required in 1.16)',
      invalid({ model: 'luminous-base', prompt: 'x' }),
      '',
      /'maximum_tokens' is required/,
    ],
    ['model missing', invalid({ prompt: 'x', maximum_tokens: 5 }), '', /'model' is required/],
    ['an unknown field', invalid({ ...BASE, max_tokens: 5 }), '', /unknown field 'max_tokens'/],
    ['a wrong type', invalid({ ...BASE, maximum_tokens: 'ten' }), '', /'maximum_tokens' must be of type integer/],
    ['a fractional integer', invalid({ ...BASE, maximum_tokens: 1.5 }), '', /'maximum_tokens' must be of type integer/],
    [
      'hosting other than aleph-alpha',
      invalid({ ...BASE, hosting: 'cloud' }),
      '',
      /'hosting' must be one of: "aleph-alpha"/,
    ],
    ['top_p above 1', invalid({ ...BASE, top_p: 2 }), '', /'top_p' must be at most 1/],
    ['a bad prompt item', invalid({ ...BASE, prompt: [{ type: 'audio', data: 'x' }] }), '', /'prompt'/],
    [
      'best_of not above n',
      JSON.stringify({ ...BASE, n: 2, best_of: 2 }),
      '',
      /'best_of' \(2\) must be greater than 'n' \(2\)/,
    ],
    ['best_of above 100', invalid({ ...BASE, best_of: 101 }), '', /'best_of' must be at most 100/],
    [
      'minimum_tokens above maximum_tokens',
      JSON.stringify({ ...BASE, minimum_tokens: 20 }),
      '',
      /'minimum_tokens' \(20\)/,
    ],
    [
      'prompt plus maximum_tokens beyond 2048',
      JSON.stringify({ ...BASE, maximum_tokens: 2048 }),
      '',
      /exceeds the 2048 tokens of luminous-base/,
    ],
    ['nice neither true nor false', JSON.stringify(BASE), '?nice=yes', /query parameter 'nice'/],
    ['a body that is not JSON', '{"model":', '', /not valid JSON/],
    ['an empty body', '', '', /body is empty/],
    ['a JSON array', '[1]', '', /must be a JSON object/],
  ])('%s → 400 BAD_REQUEST naming it', async (_name, body, query, message) => {
    await expectError(await post(body, query), 400, 'BAD_REQUEST', message);
  });

  test('an unknown model → 404 UNKNOWN_MODEL', async () => {
    await expectError(
      await post({ ...BASE, model: 'luminous-huge' }),
      404,
      'UNKNOWN_MODEL',
      /Unknown model 'luminous-huge'/,
    );
  });
});

describe('streaming ("stream": true)', () => {
  test("stream_chunks, a stream_summary, a completion_summary, then [DONE]; the text is the plain answer's", async () => {
    const plain = await complete({ ...BASE, maximum_tokens: 15 });
    const { payloads } = await stream({ ...BASE, maximum_tokens: 15 });
    const kinds = types(payloads);
    expect(kinds.slice(-3)).toEqual(['stream_summary', 'completion_summary', '[DONE]']);
    expect(new Set(kinds.slice(0, -3))).toEqual(new Set(['stream_chunk']));
    expect(
      chunks(payloads)
        .map((c) => c.completion)
        .join(''),
    ).toBe(plain.completions[0]!.completion);
    expect(payloads.at(-3)).toStrictEqual({
      type: 'stream_summary',
      index: 0,
      model_version: '2022-04',
      finish_reason: plain.completions[0]!.finish_reason,
    });
    expect(payloads.at(-2)).toStrictEqual({
      type: 'completion_summary',
      num_tokens_prompt_total: 4,
      num_tokens_generated: plain.num_tokens_generated,
    });
  });

  test('n completions stream one after the other, each with its summary', async () => {
    const { payloads } = await stream({ ...BASE, n: 2, temperature: 1 });
    const summaries = payloads.filter((p) => (p as { type?: string }).type === 'stream_summary') as Array<{
      index: number;
    }>;
    expect(summaries.map((s) => s.index)).toEqual([0, 1]);
    expect(chunks(payloads, 1).length).toBeGreaterThan(0);
  });

  test('echo and token data: the prompt comes first; token texts add up to the text', async () => {
    const { payloads } = await stream({ ...BASE, echo: true, log_probs: 1, tokens: true, stop_sequences: ['.'] });
    const parts = chunks(payloads);
    expect(parts[0]!.completion).toBe('An apple a day');
    expect(parts[0]!.log_probs![0]).toEqual({});
    expect(parts.flatMap((c) => c.completion_tokens!).join('')).toBe(parts.map((c) => c.completion).join(''));
  });

  test('best_of streams the chosen completion', async () => {
    const { payloads } = await stream({ ...BASE, best_of: 2, temperature: 1 });
    expect(types(payloads).filter((t) => t === 'stream_summary')).toHaveLength(1);
    expect(payloads.at(-2)).toMatchObject({ num_tokens_prompt_total: 8 });
  });
});

describe('faults', () => {
  test('a bare 503 answers QUEUE_FULL with Retry-After, then normal service', async () => {
    server.faults.push({ kind: 'status', status: 503, retryAfter: '1' });
    const res = await post(BASE);
    expect(res.headers.get('retry-after')).toBe('1');
    await expectError(res, 503, 'QUEUE_FULL');
    expect((await post(BASE)).status).toBe(200);
  });

  test.each([
    [429, 'TOO_MANY_REQUESTS'],
    [500, 'INTERNAL_ERROR'],
    [504, 'GATEWAY_TIMEOUT'],
  ])('a bare %i answers %s', async (status, code) => {
    server.faults.push({ kind: 'status', status });
    await expectError(await post(BASE), status, code);
  });

  test("a fault body goes out as it is (a proxy's plain text)", async () => {
    server.faults.push({ kind: 'status', status: 502, body: 'Bad Gateway' });
    const res = await post(BASE);
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(await res.text()).toBe('Bad Gateway');
  });

  test('a request the service would reject is rejected before any fault', async () => {
    server.faults.push({ kind: 'status', status: 503 });
    await expectError(await post(invalid({ model: 'luminous-base', prompt: 'x' })), 400, 'BAD_REQUEST');
    expect(server.faults).toHaveLength(1);
  });

  test('stream-error: the chunks so far, then data: {"error","code"} and the end, no [DONE]', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 2 });
    const { payloads } = await stream({ ...BASE, maximum_tokens: 10, minimum_tokens: 10 });
    expect(payloads).toHaveLength(3);
    expect(types(payloads).slice(0, 2)).toEqual(['stream_chunk', 'stream_chunk']);
    expect(payloads[2]).toStrictEqual({ error: expect.any(String), code: 'INTERNAL_ERROR' });
  });

  test('a stream fault does not hit a plain request', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 0 });
    await complete(BASE);
    expect(server.faults).toHaveLength(1);
  });

  test('malformed: a data line that is not JSON, then the stream goes on', async () => {
    server.faults.push({ kind: 'malformed', afterEvents: 1 });
    const res = await post({ ...BASE, stream: true }, '', { accept: 'text/event-stream' });
    const text = await res.text();
    const datas = [...new SseParser().push(text)].map((e) => e.data);
    expect(datas[1]).toBe('{"type":"stream_chunk","index":0,"completion":');
    expect(datas.at(-1)).toBe('[DONE]');
  });

  test('drop mid-stream cuts the connection after the events sent', async () => {
    server.faults.push({ kind: 'drop', afterEvents: 2 });
    const res = await post({ ...BASE, stream: true, maximum_tokens: 10, minimum_tokens: 10 }, '', {
      accept: 'text/event-stream',
    });
    const read = await readStream(res);
    expect(read.payloads.length).toBeLessThanOrEqual(2);
    expect(types(read.payloads)).not.toContain('[DONE]');
  });
});

describe('other routes', () => {
  test('GET /version is plain text', async () => {
    const res = await fetch(`${server.url}/version`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('1.16.1');
  });

  test('GET /models_available lists the luminous models', async () => {
    const res = await fetch(`${server.url}/models_available`);
    const models = alephAlphaModelsAvailableSchema.parse(await res.json());
    expect(models.map((m) => m.name)).toContain('luminous-base');
  });

  test('an unknown path under /complete and a wrong method answer in the AA error shape', async () => {
    await expectError(await fetch(`${server.url}/complete/extra`, { method: 'POST' }), 404, 'NOT_FOUND');
    const res = await fetch(`${server.url}/complete`);
    expect(res.headers.get('allow')).toBe('POST');
    await expectError(res, 405, 'METHOD_NOT_ALLOWED');
  });
});

describe('auth (requireAuth)', () => {
  beforeEach(async () => {
    await server.close();
    options = { requireAuth: true, apiKeys: ['aa-key'] };
    server = await startServer({ protocols: [alephAlphaProtocol], ...options });
  });
  afterEach(() => {
    options = {};
  });

  test.each([
    ['no Authorization header', {}],
    ['an unknown token', { authorization: 'Bearer other' }],
    ['the key without the Bearer scheme', { authorization: 'aa-key' }],
  ])('%s → 401 UNAUTHENTICATED', async (_name, headers) => {
    await expectError(await post(BASE, '', headers), 401, 'UNAUTHENTICATED', /Bearer/);
  });

  test('Bearer with a known key is served', async () => {
    expect((await post(BASE, '', { authorization: 'Bearer aa-key' })).status).toBe(200);
  });

  test('/models_available needs the token too; /version does not', async () => {
    await expectError(await fetch(`${server.url}/models_available`), 401, 'UNAUTHENTICATED');
    expect(
      (await fetch(`${server.url}/models_available`, { headers: { authorization: 'Bearer aa-key' } })).status,
    ).toBe(200);
    expect((await fetch(`${server.url}/version`)).status).toBe(200);
  });
});
