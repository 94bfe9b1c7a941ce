import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SseParser } from '../../src/http/sse-parser.js';
import type { SseEvent } from '../../src/contract/http.js';
import { packageVersion } from '../../src/version.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/emulator/core/index.js';
import { openInferenceProtocol } from '../../profiles/open-inference/server/index.js';
import { assertValid, oipValidators } from '../contract/oip-openapi.js';

const GENERATE = '/v2/models/demo/generate';
const STREAM = '/v2/models/demo/generate_stream';
const v = oipValidators();

let server: RunningServer;
async function start(options: ServerOptions = {}): Promise<void> {
  server = await startServer({ protocols: [openInferenceProtocol], ...options });
}
afterEach(async () => {
  await server.close();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: path.endsWith('_stream') ? 'text/event-stream' : 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A valid request: checked against the document before it is sent. */
function request(body: Record<string, unknown>): Record<string, unknown> {
  return assertValid(v.generateRequest, body, 'test request');
}

/** The 200 answer of generate, validated. */
async function generate(body: Record<string, unknown>, path = GENERATE) {
  const res = await post(path, request(body));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  // any: the answer has just passed the OpenAPI document; the tests read its nested extras freely.
  return assertValid<
    { text_output: string; model_name: string; model_version?: string; details?: Record<string, any> } & Record<
      string,
      any
    >
  >(v.generateResponse, await res.json(), 'generate answer');
}

interface StreamRead {
  res: Response;
  text: string;
  events: SseEvent[];
  // any: each message has passed the document's stream or error schema; the tests read nested fields freely.
  messages: Array<Record<string, any>>;
}

/** A whole generate_stream body; every message is validated (errors against the error schema). */
async function stream(body: Record<string, unknown>, path = STREAM): Promise<StreamRead> {
  const res = await post(path, request(body));
  const text = await res.text();
  const parser = new SseParser();
  const events = [...parser.push(text), ...parser.end()];
  const messages = events.map((e, i) => {
    const json = JSON.parse(e.data) as Record<string, unknown>;
    return 'error' in json
      ? assertValid(v.error, json, `stream error ${i}`)
      : assertValid(v.streamMessage, json, `stream message ${i}`);
  });
  return { res, text, events, messages };
}

describe('generate', () => {
  beforeEach(() => start());

  test('answers a GenerateResponse with the model from the path, version "1", no details unless asked', async () => {
    const body = await generate({ text_input: 'Hello there', parameters: { max_tokens: 8, seed: 3 } });
    expect(body.model_name).toBe('demo');
    expect(body.model_version).toBe('1');
    expect(typeof body.text_output).toBe('string');
    expect(body.details).toBeUndefined();
  });

  test('the versioned path answers with that version', async () => {
    const body = await generate(
      { text_input: 'Hello', parameters: { max_tokens: 2 } },
      '/v2/models/llama/versions/7/generate',
    );
    expect(body).toMatchObject({ model_name: 'llama', model_version: '7' });
  });

  test('details: finish reason, one token per generated token, the tokens spell the text', async () => {
    const body = await generate({
      text_input: 'Write about the sea',
      parameters: { max_tokens: 12, seed: 9, details: true },
    });
    const details = body.details!;
    expect(['length', 'eos_token', 'stop_sequence']).toContain(details.finish_reason);
    expect(details.logprobs).toHaveLength(details.generated_tokens);
    expect(details.logprobs.map((t: { text: string }) => t.text).join('')).toBe(body.text_output);
    expect(details.seed).toBe(9);
    for (const t of details.logprobs)
      expect(t).toEqual({
        id: expect.any(Number),
        text: expect.any(String),
        logprob: expect.any(Number),
        special: false,
      });
  });

  test('the same seed gives the same text; temperature 0 is greedy and has no seed', async () => {
    const req = { text_input: 'Tell me a story', parameters: { max_tokens: 20, seed: 42 } };
    expect((await generate(req)).text_output).toBe((await generate(req)).text_output);
    const greedy = { text_input: 'Tell me a story', parameters: { max_tokens: 20, temperature: 0, details: true } };
    const a = await generate(greedy);
    expect((await generate(greedy)).text_output).toBe(a.text_output);
    expect(a.details!.seed).toBeUndefined();
  });

  test('max_tokens with min tokens (both spellings) ends on length after exactly that many tokens', async () => {
    for (const min of ['min_tokens', 'min_new_tokens']) {
      const body = await generate({
        text_input: 'Go',
        parameters: { max_tokens: 15, [min]: 15, seed: 1, details: true },
      });
      expect(body.details).toMatchObject({ finish_reason: 'length', generated_tokens: 15 });
    }
  });

  test('stop ends on stop_sequence; include_stop_sequence false leaves the stop text out', async () => {
    const probe = await generate({
      text_input: 'Tell me a long story',
      parameters: { max_tokens: 30, min_tokens: 30, seed: 5 },
    });
    const stopAt = probe.text_output.split(' ').filter(Boolean)[3]!;
    const kept = await generate({
      text_input: 'Tell me a long story',
      parameters: { max_tokens: 30, seed: 5, stop: [stopAt], details: true },
    });
    expect(kept.details!.finish_reason).toBe('stop_sequence');
    expect(kept.text_output.endsWith(stopAt)).toBe(true);
    const dropped = await generate({
      text_input: 'Tell me a long story',
      parameters: { max_tokens: 30, seed: 5, stop: [stopAt], include_stop_sequence: false },
    });
    expect(dropped.text_output).toBe(kept.text_output.slice(0, -stopAt.length));
  });

  test('top_n_tokens, token_ranks and moderations come back inside details', async () => {
    const body = await generate({
      text_input: 'you idiot, write to me',
      parameters: {
        max_tokens: 4,
        seed: 2,
        details: true,
        top_n_tokens: 2,
        token_ranks: true,
        moderations: { hap: { input: { enabled: true, threshold: 0.5 } } },
      },
    });
    const details = body.details!;
    expect(details.top_tokens).toHaveLength(details.logprobs.length);
    for (const top of details.top_tokens) {
      expect(top.length).toBeLessThanOrEqual(2);
      for (const t of top)
        expect(t).toEqual({
          id: expect.any(Number),
          text: expect.any(String),
          logprob: expect.any(Number),
          special: false,
        });
    }
    for (const t of details.logprobs) expect(t.rank).toBeGreaterThanOrEqual(1);
    expect(details.moderations.hap).toEqual([expect.objectContaining({ entity: 'has_HAP', input: true })]);
  });

  test('exclude_input_in_output false puts the prompt in front, as vLLM does by default', async () => {
    const excluded = await generate({ text_input: 'Hello', parameters: { max_tokens: 5, seed: 4 } });
    const included = await generate({
      text_input: 'Hello',
      parameters: { max_tokens: 5, seed: 4, exclude_input_in_output: false },
    });
    expect(included.text_output).toBe(`Hello${excluded.text_output}`);
  });

  test('return_num_input_tokens and return_num_output_tokens add the counts', async () => {
    const body = await generate({
      text_input: 'Hello there',
      parameters: {
        max_tokens: 3,
        min_tokens: 3,
        seed: 1,
        return_num_input_tokens: true,
        return_num_output_tokens: true,
      },
    });
    expect(body).toMatchObject({ num_input_tokens: 2, num_output_tokens: 3 });
  });

  test('unknown parameter keys are accepted, as Triton passes them on', async () => {
    await generate({
      text_input: 'Hi',
      parameters: { max_tokens: 2, beam_width: 4, return_log_probs: true, custom: { a: 1 } },
    });
  });

  test("every answer carries a request id: the client's own, else a fresh one", async () => {
    const mine = await post(
      GENERATE,
      { text_input: 'Hi', parameters: { max_tokens: 1 } },
      { 'x-request-id': 'trace-me' },
    );
    expect(mine.headers.get('x-request-id')).toBe('trace-me');
    const fresh = await post(GENERATE, { text_input: 'Hi', parameters: { max_tokens: 1 } });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('validation', () => {
  beforeEach(() => start());

  test.each([
    ['text_input missing', { parameters: {} }, '`text_input` is required'],
    ['text_input not a string', { text_input: 5 }, '`text_input` must be a string'],
    ['text_input empty', { text_input: '' }, '`text_input` cannot be empty'],
    ['parameters not an object', { text_input: 'x', parameters: [1] }, '`parameters` must be an object'],
    [
      'a negative temperature',
      { text_input: 'x', parameters: { temperature: -1 } },
      '`parameters.temperature` must be a number greater than or equal to 0, got -1',
    ],
    [
      'top_p above 1',
      { text_input: 'x', parameters: { top_p: 2 } },
      '`parameters.top_p` must be a number less than or equal to 1, got 2',
    ],
    [
      'max_tokens 0',
      { text_input: 'x', parameters: { max_tokens: 0 } },
      '`parameters.max_tokens` must be an integer greater than or equal to 1, got 0',
    ],
    [
      'max_tokens fractional',
      { text_input: 'x', parameters: { max_tokens: 1.5 } },
      '`parameters.max_tokens` must be an integer, got 1.5',
    ],
    [
      'max_new_tokens (TGI name) as a string',
      { text_input: 'x', parameters: { max_new_tokens: '5' } },
      '`parameters.max_new_tokens` must be an integer, got "5"',
    ],
    [
      'stop as a string',
      { text_input: 'x', parameters: { stop: 'END' } },
      '`parameters.stop` must be an array of strings, got "END"',
    ],
    [
      'details not a boolean',
      { text_input: 'x', parameters: { details: 'yes' } },
      '`parameters.details` must be a boolean',
    ],
    [
      'top_k 0',
      { text_input: 'x', parameters: { top_k: 0 } },
      '`parameters.top_k` must be an integer greater than or equal to 1',
    ],
    [
      'a negative seed',
      { text_input: 'x', parameters: { seed: -1 } },
      '`parameters.seed` must be an integer greater than or equal to 0',
    ],
    [
      'typical_p 0',
      { text_input: 'x', parameters: { typical_p: 0 } },
      '`parameters.typical_p` must be a number greater than 0',
    ],
    [
      'repetition_penalty 0',
      { text_input: 'x', parameters: { repetition_penalty: 0 } },
      '`parameters.repetition_penalty` must be a number greater than 0',
    ],
    [
      'length_penalty decay below 1',
      { text_input: 'x', parameters: { length_penalty: { decay_factor: 0.5 } } },
      '`parameters.length_penalty.decay_factor` must be a number greater than 1',
    ],
    [
      'top_n_tokens above 5',
      { text_input: 'x', parameters: { top_n_tokens: 6 } },
      '`parameters.top_n_tokens` must be an integer less than or equal to 5',
    ],
    [
      'a prompt that cannot fit with max_tokens',
      { text_input: 'x', parameters: { max_tokens: 32768 } },
      '`text_input` tokens + `max_tokens` must be <= 32768',
    ],
  ])('%s → 422 naming the field', async (_name, body, message) => {
    const res = await post(GENERATE, body);
    expect(res.status).toBe(422);
    const error = assertValid<{ error: string; error_type: string }>(v.error, await res.json(), 'error');
    expect(error.error).toContain('Input validation error: ');
    expect(error.error).toContain(message);
    expect(error.error_type).toBe('validation');
  });

  test('a body that is not JSON is 400 in the same error shape', async () => {
    const res = await post(GENERATE, '{"text_input":');
    expect(res.status).toBe(400);
    expect(assertValid(v.error, await res.json()).error).toMatch(/not valid JSON/);
  });

  test('unknown routes under /v2 and wrong methods answer {"error"}', async () => {
    const missing = await fetch(`${server.url}/v2/repository/nothing`);
    expect(missing.status).toBe(404);
    assertValid(v.error, await missing.json());
    const wrongMethod = await fetch(server.url + GENERATE);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    assertValid(v.error, await wrongMethod.json());
  });
});

describe('generate_stream', () => {
  beforeEach(() => start());

  test('Triton framing: data-only messages, no event or id, a keep-alive comment, no end marker', async () => {
    const { res, text, events, messages } = await stream({
      text_input: 'Tell me a long story',
      parameters: { max_tokens: 20, min_tokens: 20, seed: 8 },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(text).toMatch(/^: keep-alive\n\n/);
    expect(text.split('\n').filter((l) => l !== '' && !l.startsWith('data: ') && !l.startsWith(':'))).toEqual([]);
    expect(text.match(/^: keep-alive$/gm)!.length).toBeGreaterThanOrEqual(2);
    expect(events.every((e) => e.event === 'message' && e.id === undefined)).toBe(true);
    expect(messages).toHaveLength(20);
    expect(text).not.toContain('[DONE]');
    expect(messages.at(-1)!.details).toBeUndefined();
    expect(messages.every((m) => m.model_name === 'demo' && m.model_version === '1')).toBe(true);
  });

  test('streamed deltas add up to the plain answer for the same seed', async () => {
    const req = { text_input: 'Write about the sea', parameters: { max_tokens: 16, seed: 21 } };
    const whole = await generate(req);
    const { messages } = await stream(req);
    expect(messages.map((m) => m.text_output).join('')).toBe(whole.text_output);
  });

  test('with details: each message carries its token, the last one the finish reason too', async () => {
    const { messages } = await stream(
      { text_input: 'Go on', parameters: { max_tokens: 6, min_tokens: 6, seed: 2, details: true, token_ranks: true } },
      '/v2/models/demo/versions/4/generate_stream',
    );
    expect(messages).toHaveLength(6);
    for (const m of messages) {
      expect(m.token).toEqual({
        id: expect.any(Number),
        text: m.text_output,
        logprob: expect.any(Number),
        special: false,
        rank: expect.any(Number),
      });
      expect(m.model_version).toBe('4');
    }
    expect(messages.slice(0, -1).every((m) => m.details === undefined)).toBe(true);
    expect(messages.at(-1)!.details).toMatchObject({
      finish_reason: 'length',
      token: messages.at(-1)!.token,
      generated_tokens: 6,
      seed: 2,
    });
  });

  test('a stream-error fault sends {"error"} inside the 200 stream after the given number of messages', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 3 });
    const { res, messages } = await stream({
      text_input: 'Tell me a long story',
      parameters: { max_tokens: 10, min_tokens: 10 },
    });
    expect(res.status).toBe(200);
    expect(messages).toHaveLength(4);
    expect(messages.slice(0, 3).every((m) => typeof m.text_output === 'string')).toBe(true);
    expect(messages[3]).toEqual({
      error: expect.stringContaining('Request failed during generation'),
      error_type: 'generation',
    });
  });

  test('a malformed fault slips in a data line that is not JSON, then the stream goes on', async () => {
    server.faults.push({ kind: 'malformed', afterEvents: 1 });
    const res = await post(
      STREAM,
      request({ text_input: 'Tell me a long story', parameters: { max_tokens: 4, min_tokens: 4 } }),
    );
    const parser = new SseParser();
    const events = [...parser.push(await res.text()), ...parser.end()];
    expect(events.map((e) => e.data)[1]).toBe('{"text_output":');
    expect(events).toHaveLength(5);
  });
});

describe('status faults', () => {
  beforeEach(() => start());

  test('a 429 with Retry-After in the spec error shape, then normal service', async () => {
    server.faults.push({ kind: 'status', status: 429, retryAfter: '2', retryAfterMs: 1500 });
    const res = await post(GENERATE, { text_input: 'Hi', parameters: { max_tokens: 1 } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.headers.get('retry-after-ms')).toBe('1500');
    expect(assertValid(v.error, await res.json())).toEqual({ error: 'Model is overloaded', error_type: 'overloaded' });
    expect((await post(GENERATE, { text_input: 'Hi', parameters: { max_tokens: 1 } })).status).toBe(200);
  });

  test.each([
    [424, 'Request failed during generation'],
    [500, 'Incomplete generation'],
    [503, 'Service unavailable'],
  ])('a bare %i answers {"error"} with the spec wording', async (status, message) => {
    server.faults.push({ kind: 'status', status });
    const res = await post(STREAM, { text_input: 'Hi', parameters: { max_tokens: 1 } });
    expect(res.status).toBe(status);
    expect(assertValid<{ error: string }>(v.error, await res.json()).error).toBe(message);
  });

  test('a fault with its own body sends that body', async () => {
    server.faults.push({ kind: 'status', status: 502, body: '<html>bad gateway</html>' });
    const res = await post(GENERATE, { text_input: 'Hi' });
    expect(res.status).toBe(502);
    expect(await res.text()).toBe('<html>bad gateway</html>');
  });

  test('a fault never hides a validation error: it waits for a request the service would serve', async () => {
    server.faults.push({ kind: 'status', status: 500 });
    expect((await post(GENERATE, { text_input: '' })).status).toBe(422);
    expect(server.faults).toHaveLength(1);
    expect((await post(GENERATE, { text_input: 'Hi' })).status).toBe(500);
  });
});

describe('auth', () => {
  beforeEach(() => start({ requireAuth: true, apiKeys: ['key-1', 'key-2'] }));

  test.each([
    ['no Authorization header', undefined],
    ['an unknown key', 'Bearer nope'],
    ['another scheme', 'Basic a2V5LTE6'],
  ])('%s → 401 {"error"}', async (_name, authorization) => {
    const res = await post(
      GENERATE,
      { text_input: 'Hi', parameters: { max_tokens: 1 } },
      authorization ? { authorization } : {},
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(assertValid<{ error: string }>(v.error, await res.json()).error).toMatch(/Authorization/);
  });

  test('any configured key as a bearer token is accepted, on plain and streamed routes', async () => {
    expect(
      (await post(GENERATE, { text_input: 'Hi', parameters: { max_tokens: 1 } }, { authorization: 'Bearer key-2' }))
        .status,
    ).toBe(200);
    const streamed = await post(
      STREAM,
      { text_input: 'Hi', parameters: { max_tokens: 1 } },
      { authorization: 'bearer key-1' },
    );
    expect(streamed.status).toBe(200);
    await streamed.text();
  });

  test('health probes stay open; metadata needs the key', async () => {
    expect((await fetch(`${server.url}/v2/health/live`)).status).toBe(200);
    expect((await fetch(`${server.url}/v2/health/ready`)).status).toBe(200);
    expect((await fetch(`${server.url}/v2`)).status).toBe(401);
    expect((await fetch(`${server.url}/v2/models/demo/ready`)).status).toBe(401);
    expect(
      (await fetch(`${server.url}/v2/models/demo/ready`, { headers: { authorization: 'Bearer key-1' } })).status,
    ).toBe(200);
  });
});

describe('metadata and health', () => {
  beforeEach(() => start());

  test.each([
    ['/v2', { name: 'textgen-local', version: packageVersion(), extensions: ['generate'] }],
    ['/v2/health/live', { live: true }],
    ['/v2/health/ready', { ready: true }],
    [
      '/v2/models/llama',
      {
        name: 'llama',
        versions: ['1'],
        platform: expect.any(String),
        inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1] }],
        outputs: [{ name: 'text_output', datatype: 'BYTES', shape: [-1] }],
      },
    ],
    ['/v2/models/llama/versions/3', { name: 'llama', versions: ['3'] }],
    ['/v2/models/llama/ready', { name: 'llama', ready: true }],
    ['/v2/models/llama/versions/3/ready', { name: 'llama', ready: true }],
  ])('GET %s → 200', async (path, expected) => {
    const res = await fetch(server.url + path);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject(expected);
  });
});
