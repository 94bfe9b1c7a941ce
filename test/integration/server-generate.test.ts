import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SseParser } from '../../src/http/sse-parser.js';
import type { SseEvent } from '../../src/contract/http.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import {
  watsonxErrorSchema,
  watsonxFoundationGenerateRequestSchema,
  watsonxGenerateRequestSchema,
  watsonxStreamEventSchema,
  watsonxTextGenResponseSchema,
} from '../contract/watsonx-schemas.js';

const V = '?version=2024-05-01';
const DEPLOY = `/ml/v1/deployments/demo/text/generation${V}`;
const DEPLOY_STREAM = `/ml/v1/deployments/demo/text/generation_stream${V}`;
const MODEL = `/ml/v1/text/generation${V}`;
const MODEL_STREAM = `/ml/v1/text/generation_stream${V}`;

let server: RunningServer;
beforeEach(async () => {
  server = await startServer({ requestLog: { max: 1000 } });
});
afterEach(async () => {
  await server.close();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function parseEvents(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}

async function streamEvents(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await post(path, body, { accept: 'text/event-stream', ...headers });
  const text = await res.text();
  return { res, text, events: parseEvents(text) };
}

describe('deployment generation', () => {
  test('answers a TextGenResponse that validates, with the local model id', async () => {
    const request = { input: 'Hello there', parameters: { random_seed: 3, max_new_tokens: 12 } };
    expect(watsonxGenerateRequestSchema.safeParse(request).success).toBe(true);
    const res = await post(DEPLOY, request);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = watsonxTextGenResponseSchema.parse(await res.json());
    expect(body.model_id).toBe('textgen/local-demo');
    expect(body.results[0]).toMatchObject({ seed: 3, input_token_count: 2 });
    expect(body.results[0]!.generated_token_count).toBeLessThanOrEqual(12);
    expect(body.system).toBeUndefined();
  });

  test.each([
    ['its id', 'classification'],
    ['its serving name', 'classification_serving'],
  ])('a deployment is known by %s, and answers with its base model', async (_what, idOrName) => {
    const res = await post(`/ml/v1/deployments/${idOrName}/text/generation${V}`, {
      input: 'Hi',
      parameters: { max_new_tokens: 2 },
    });
    expect(res.status).toBe(200);
    expect(watsonxTextGenResponseSchema.parse(await res.json()).model_id).toBe('ibm/granite-3-3-8b-instruct');
  });

  test.each(['generation', 'generation_stream'])(
    "an unknown deployment on %s is the service's 404 deployment_does_not_exist",
    async (route) => {
      const res = await post(`/ml/v1/deployments/${encodeURIComponent('my serving name')}/text/${route}${V}`, {
        input: 'Hi',
      });
      expect(res.status).toBe(404);
      const body = watsonxErrorSchema.parse(await res.json());
      expect(body.errors).toEqual([
        {
          code: 'deployment_does_not_exist',
          message: "Deployment with id 'my serving name' does not exist. Re-try with a valid deployment id.",
          more_info: 'https://cloud.ibm.com/apidocs/watsonx-ai',
        },
      ]);
      expect(body.status_code).toBe(404);
    },
  );

  test('without max_new_tokens the unspecified_max_token warning comes back, as watsonx does', async () => {
    const body = watsonxTextGenResponseSchema.parse(await (await post(DEPLOY, { input: 'Hello' })).json());
    expect(body.system?.warnings).toEqual([expect.objectContaining({ id: 'unspecified_max_token' })]);
    expect(body.results[0]!.generated_token_count).toBeLessThanOrEqual(20);
  });

  test('the same seed gives the same answer twice', async () => {
    const request = { input: 'Write about the sea', parameters: { random_seed: 42, max_new_tokens: 30 } };
    const a = watsonxTextGenResponseSchema.parse(await (await post(DEPLOY, request)).json());
    const b = watsonxTextGenResponseSchema.parse(await (await post(DEPLOY, request)).json());
    expect(b.results[0]!.generated_text).toBe(a.results[0]!.generated_text);
  });

  test('return_options add input text, token data and top tokens', async () => {
    const request = {
      input: 'Tell me a story',
      parameters: {
        max_new_tokens: 6,
        return_options: {
          input_text: true,
          generated_tokens: true,
          input_tokens: true,
          token_logprobs: true,
          token_ranks: true,
          top_n_tokens: 3,
        },
      },
    };
    const body = watsonxTextGenResponseSchema.parse(await (await post(DEPLOY, request)).json());
    const result = body.results[0]!;
    expect(result.input_text).toBe('Tell me a story');
    expect(result.generated_tokens).toHaveLength(result.generated_token_count);
    expect(result.generated_tokens!.map((t) => t.text).join('')).toBe(result.generated_text);
    for (const t of result.generated_tokens!) {
      expect(t.logprob).toBeLessThanOrEqual(0);
      expect(t.rank).toBeGreaterThanOrEqual(1);
      expect(t.top_tokens!.length).toBeLessThanOrEqual(3);
    }
    expect(result.input_tokens!.map((t) => t.text).join('')).toBe('Tell me a story');
    expect(result.input_tokens![0]).toEqual({ text: 'Tell' });
  });

  test('token data stays out unless asked for', async () => {
    const body = watsonxTextGenResponseSchema.parse(
      await (
        await post(DEPLOY, {
          input: 'Hi',
          parameters: { max_new_tokens: 4, return_options: { generated_tokens: true } },
        })
      ).json(),
    );
    for (const t of body.results[0]!.generated_tokens!) expect(Object.keys(t)).toEqual(['text']);
    expect(body.results[0]!.input_tokens).toBeUndefined();
  });

  test('prompt variables fill the placeholders of the prompt', async () => {
    const request = {
      input: 'Tell me about {topic}',
      parameters: {
        max_new_tokens: 2,
        prompt_variables: { topic: 'lighthouses' },
        return_options: { input_text: true },
      },
    };
    const body = watsonxTextGenResponseSchema.parse(await (await post(DEPLOY, request)).json());
    expect(body.results[0]!.input_text).toBe('Tell me about lighthouses');
  });

  test('moderations report HAP in the input', async () => {
    const request = {
      input: 'you idiot',
      parameters: { max_new_tokens: 2 },
      moderations: { hap: { input: { enabled: true, threshold: 0.5 } } },
    };
    const body = watsonxTextGenResponseSchema.parse(await (await post(DEPLOY, request)).json());
    expect(body.results[0]!.moderations).toEqual({
      hap: [{ score: 0.97, input: true, position: { start: 4, end: 9 }, entity: 'has_HAP' }],
    });
  });

  test('every request is recorded with its wire details', async () => {
    await post(DEPLOY, { input: 'Hi', parameters: { max_new_tokens: 1 } }, { 'x-custom': 'yes' });
    const recorded = server.requests.at(-1)!;
    expect(recorded).toMatchObject({
      method: 'POST',
      path: '/ml/v1/deployments/demo/text/generation',
      query: { version: '2024-05-01' },
      json: { input: 'Hi', parameters: { max_new_tokens: 1 } },
    });
    expect(recorded.headers['x-custom']).toBe('yes');
    expect(recorded.headers['content-type']).toBe('application/json');
    expect(JSON.parse(recorded.body)).toEqual(recorded.json);
  });
});

describe('streaming', () => {
  test('SSE events: id, event message, JSON data; first carries the input count and warnings, last the stop reason', async () => {
    const { res, text, events } = await streamEvents(DEPLOY_STREAM, {
      input: 'Hello world',
      parameters: { random_seed: 5 },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(text).toMatch(/^id: 1\nevent: message\ndata: \{/);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => String(i + 1)));
    expect(events.every((e) => e.event === 'message')).toBe(true);
    const chunks = events.map((e) => watsonxStreamEventSchema.parse(JSON.parse(e.data)));
    const first = chunks[0]!;
    expect(first.results[0]).toMatchObject({
      generated_text: '',
      generated_token_count: 0,
      input_token_count: 2,
      stop_reason: 'not_finished',
    });
    expect(first.system?.warnings?.[0]?.id).toBe('unspecified_max_token');
    const last = chunks.at(-1)!.results[0]!;
    expect(['max_tokens', 'eos_token']).toContain(last.stop_reason);
    expect(last.seed).toBe(5);
    for (const c of chunks.slice(1, -1)) expect(c.results[0]!.stop_reason).toBe('not_finished');
    expect(chunks.length).toBe(last.generated_token_count + 1);
  });

  test('the deltas add up to the text of the same request without streaming', async () => {
    const request = {
      input: 'Describe a harbor',
      parameters: { random_seed: 8, max_new_tokens: 40, stop_sequences: ['.'], include_stop_sequence: false },
    };
    const plain = watsonxTextGenResponseSchema.parse(await (await post(DEPLOY, request)).json());
    const { events } = await streamEvents(DEPLOY_STREAM, request);
    const deltas = events.map((e) => watsonxStreamEventSchema.parse(JSON.parse(e.data)).results[0]!.generated_text);
    expect(deltas.join('')).toBe(plain.results[0]!.generated_text);
  });

  test('streamed token data comes one token per event', async () => {
    const { events } = await streamEvents(DEPLOY_STREAM, {
      input: 'Hi',
      parameters: {
        max_new_tokens: 5,
        min_new_tokens: 5,
        return_options: { generated_tokens: true, token_logprobs: true },
      },
    });
    const results = events.map((e) => watsonxStreamEventSchema.parse(JSON.parse(e.data)).results[0]!);
    expect(results[0]!.generated_tokens).toBeUndefined();
    for (const r of results.slice(1))
      expect(r.generated_tokens).toEqual([{ text: r.generated_text, logprob: expect.any(Number) }]);
  });

  test('the plain route streams when the client accepts only text/event-stream', async () => {
    const { res, events } = await streamEvents(DEPLOY, { input: 'Hi', parameters: { max_new_tokens: 3 } });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(events.length).toBeGreaterThan(1);
  });

  test('every event carries the input token count, not only the first', async () => {
    const { events } = await streamEvents(DEPLOY_STREAM, {
      input: 'Count these four',
      parameters: { max_new_tokens: 4, decoding_method: 'greedy' },
    });
    const results = events.map((e) => watsonxStreamEventSchema.parse(JSON.parse(e.data)).results[0]!);
    expect(results.length).toBeGreaterThan(2);
    expect(new Set(results.map((r) => r.input_token_count))).toEqual(new Set([3]));
  });

  test('max_new_tokens 0 streams the input count and one final event', async () => {
    const { events } = await streamEvents(DEPLOY_STREAM, { input: 'Count me', parameters: { max_new_tokens: 0 } });
    const results = events.map((e) => watsonxStreamEventSchema.parse(JSON.parse(e.data)).results[0]!);
    expect(results).toEqual([
      expect.objectContaining({ input_token_count: 2, stop_reason: 'not_finished' }),
      expect.objectContaining({ generated_text: '', generated_token_count: 0, stop_reason: 'max_tokens' }),
    ]);
  });
});

describe('foundation model generation', () => {
  test.each([
    ['plain', MODEL],
    ['stream', MODEL_STREAM],
  ])('%s: echoes the model id', async (_, path) => {
    const request = {
      input: 'Hi',
      model_id: 'ibm/granite-13b-instruct-v2',
      space_id: 'abc',
      parameters: { max_new_tokens: 3 },
    };
    expect(watsonxFoundationGenerateRequestSchema.safeParse(request).success).toBe(true);
    const res = await post(path, request, { accept: path === MODEL ? 'application/json' : 'text/event-stream' });
    expect(res.status).toBe(200);
    const text = await res.text();
    const bodies = path === MODEL ? [JSON.parse(text)] : parseEvents(text).map((e) => JSON.parse(e.data));
    for (const b of bodies) expect(watsonxStreamEventSchema.parse(b).model_id).toBe('ibm/granite-13b-instruct-v2');
  });

  test.each([
    ['plain', MODEL, 'text-generation'],
    ['stream', MODEL_STREAM, 'text-generation-stream'],
  ])('%s: a model the service does not list is its 404 model_not_supported', async (_, path, anchor) => {
    const res = await post(path, { input: 'Hi', model_id: 'ibm/granite-99b-imaginary', space_id: 's' });
    expect(res.status).toBe(404);
    const body = watsonxErrorSchema.parse(await res.json());
    expect(body.errors).toEqual([
      {
        code: 'model_not_supported',
        message: "Model 'ibm/granite-99b-imaginary' is not supported",
        more_info: `https://cloud.ibm.com/apidocs/watsonx-ai#${anchor}`,
      },
    ]);
  });

  test('an embedding model cannot generate: 400 model_no_support_for_function', async () => {
    const res = await post(MODEL, { input: 'Hi', model_id: 'ibm/slate-125m-english-rtrvr-v2', space_id: 's' });
    expect(res.status).toBe(400);
    expect(watsonxErrorSchema.parse(await res.json()).errors[0]).toMatchObject({
      code: 'model_no_support_for_function',
      message: "Model 'ibm/slate-125m-english-rtrvr-v2' does not support function 'function_text_generation'",
    });
  });

  test.each([
    ['plain', MODEL],
    ['stream', MODEL_STREAM],
  ])('%s: parameters.chat (history and context) is taken and joins the prompt', async (_, path) => {
    const chat = {
      history: [
        { is_question: true, content: 'Who wrote it?' },
        { is_question: false, content: 'Ada did.' },
      ],
      context: 'A story about engines.',
    };
    const request = {
      input: 'When?',
      model_id: 'ibm/granite-4-h-small',
      space_id: 's',
      parameters: { max_new_tokens: 2, chat },
    };
    expect(watsonxFoundationGenerateRequestSchema.safeParse(request).success).toBe(true);
    const res = await post(path, request);
    expect(res.status).toBe(200);
    const text = await res.text();
    const first = path === MODEL ? JSON.parse(text) : JSON.parse(parseEvents(text)[0]!.data);
    const without = (await (await post(MODEL, { ...request, parameters: { max_new_tokens: 2 } })).json()) as {
      results: { input_token_count: number }[];
    };
    expect(first.results[0].input_token_count).toBeGreaterThan(without.results[0]!.input_token_count);
  });

  test('a chat turn without is_question is refused, naming the field', async () => {
    const res = await post(MODEL, {
      input: 'Hi',
      model_id: 'ibm/granite-4-h-small',
      space_id: 's',
      parameters: { chat: { history: [{ content: 'x' }] } },
    });
    expect(res.status).toBe(400);
    expect(watsonxErrorSchema.parse(await res.json()).errors[0]!.message).toContain(
      "'parameters.chat.history[0].is_question' is required",
    );
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['model_id missing', { input: 'Hi', space_id: 's' }, "'model_id' is required"],
    ['neither project nor space', { input: 'Hi', model_id: 'm' }, "exactly one of 'project_id' or 'space_id'"],
    [
      'both project and space',
      { input: 'Hi', model_id: 'm', space_id: 's', project_id: 'p' },
      "exactly one of 'project_id' or 'space_id'",
    ],
    [
      'prompt variables',
      { input: 'Hi', model_id: 'm', space_id: 's', parameters: { prompt_variables: {} } },
      "'parameters.prompt_variables' is not a recognized field",
    ],
  ])('%s → 400 json_validation_error', async (_, request, message) => {
    expect(watsonxFoundationGenerateRequestSchema.safeParse(request).success).toBe(false);
    const res = await post(MODEL, request);
    expect(res.status).toBe(400);
    const body = watsonxErrorSchema.parse(await res.json());
    expect(body.errors[0]).toMatchObject({ code: 'json_validation_error', message: expect.stringContaining(message) });
  });
});

describe('validation, as the service does it', () => {
  test.each<[string, string, unknown, string, string]>([
    [
      'missing version',
      '/ml/v1/deployments/demo/text/generation',
      { input: 'Hi' },
      'invalid_request_entity',
      "'version'",
    ],
    [
      'a version that is not a date',
      '/ml/v1/deployments/demo/text/generation?version=latest',
      { input: 'Hi' },
      'invalid_request_entity',
      "'version'",
    ],
    ['a body that is not JSON', DEPLOY, '{"input": "Hi"', 'json_validation_error', 'not valid JSON'],
    ['an empty body', DEPLOY, '', 'json_validation_error', "'input' cannot be missing or empty"],
    ['a body that is not an object', DEPLOY, '["Hi"]', 'json_validation_error', 'must be a JSON object'],
    [
      'an unknown top-level field',
      DEPLOY,
      { input: 'Hi', model: 'x' },
      'json_validation_error',
      "'model' is not a recognized field",
    ],
    [
      'an unknown parameter',
      DEPLOY,
      { input: 'Hi', parameters: { max_new_tokenz: 5 } },
      'json_validation_error',
      "'parameters.max_new_tokenz' is not a recognized field",
    ],
    [
      'an unknown return option',
      DEPLOY,
      { input: 'Hi', parameters: { return_options: { logprobs: true } } },
      'json_validation_error',
      "'parameters.return_options.logprobs'",
    ],
    [
      'a number as a string',
      DEPLOY,
      { input: 'Hi', parameters: { max_new_tokens: '20' } },
      'json_validation_error',
      "'parameters.max_new_tokens' must be of type integer",
    ],
    [
      'a fraction for an integer',
      DEPLOY,
      { input: 'Hi', parameters: { top_k: 2.5 } },
      'json_validation_error',
      "'parameters.top_k'",
    ],
    ['input of the wrong type', DEPLOY, { input: 42 }, 'json_validation_error', "'input' must be of type string"],
    [
      'top_k above 100',
      DEPLOY,
      { input: 'Hi', parameters: { top_k: 500 } },
      'json_validation_error',
      "'parameters.top_k' must be less than or equal to 100",
    ],
    [
      'temperature above 2',
      DEPLOY,
      { input: 'Hi', parameters: { temperature: 2.5 } },
      'json_validation_error',
      "'parameters.temperature'",
    ],
    [
      'top_p of 0',
      DEPLOY,
      { input: 'Hi', parameters: { top_p: 0 } },
      'json_validation_error',
      "'parameters.top_p' must be greater than 0",
    ],
    [
      'typical_p above 1',
      DEPLOY,
      { input: 'Hi', parameters: { typical_p: 1.5 } },
      'json_validation_error',
      "'parameters.typical_p'",
    ],
    [
      'repetition_penalty below 1',
      DEPLOY,
      { input: 'Hi', parameters: { repetition_penalty: 0.5 } },
      'json_validation_error',
      "'parameters.repetition_penalty'",
    ],
    [
      'random_seed 0',
      DEPLOY,
      { input: 'Hi', parameters: { random_seed: 0 } },
      'json_validation_error',
      "'parameters.random_seed' must be greater than or equal to 1",
    ],
    [
      'negative max_new_tokens',
      DEPLOY,
      { input: 'Hi', parameters: { max_new_tokens: -1 } },
      'json_validation_error',
      "'parameters.max_new_tokens'",
    ],
    [
      'time_limit 0',
      DEPLOY,
      { input: 'Hi', parameters: { time_limit: 0 } },
      'json_validation_error',
      "'parameters.time_limit' must be greater than 0",
    ],
    [
      'seven stop sequences',
      DEPLOY,
      { input: 'Hi', parameters: { stop_sequences: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] } },
      'json_validation_error',
      "'parameters.stop_sequences' must have at most 6 items",
    ],
    [
      'a stop sequence that is not a string',
      DEPLOY,
      { input: 'Hi', parameters: { stop_sequences: ['a', 1] } },
      'json_validation_error',
      "'parameters.stop_sequences[1]'",
    ],
    [
      'top_n_tokens 6',
      DEPLOY,
      { input: 'Hi', parameters: { return_options: { top_n_tokens: 6 } } },
      'json_validation_error',
      "'parameters.return_options.top_n_tokens'",
    ],
    [
      'an unknown decoding method',
      DEPLOY,
      { input: 'Hi', parameters: { decoding_method: 'beam' } },
      'json_validation_error',
      "'parameters.decoding_method' must be one of: greedy, sample",
    ],
    [
      'a length penalty decay of 1',
      DEPLOY,
      { input: 'Hi', parameters: { length_penalty: { decay_factor: 1 } } },
      'json_validation_error',
      "'parameters.length_penalty.decay_factor'",
    ],
    [
      'a moderation threshold above 1',
      DEPLOY,
      { input: 'Hi', moderations: { hap: { input: { threshold: 2 } } } },
      'json_validation_error',
      "'moderations.hap.input.threshold'",
    ],
    ['empty input', DEPLOY, { input: '' }, 'json_validation_error', "'input' cannot be missing or empty"],
    [
      'missing input',
      DEPLOY,
      { parameters: { max_new_tokens: 5 } },
      'json_validation_error',
      "'input' cannot be missing or empty",
    ],
  ])('%s → 400 naming the problem', async (_, path, body, code, message) => {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    const error = watsonxErrorSchema.parse(await res.json());
    expect(error.status_code).toBe(400);
    expect(error.errors[0]!.code).toBe(code);
    expect(error.errors[0]!.message).toContain(message);
  });

  test('invalid bodies from the table also fail the contract schema', () => {
    for (const body of [
      { input: 'Hi', model: 'x' },
      { input: 'Hi', parameters: { max_new_tokenz: 5 } },
      { input: 'Hi', parameters: { top_k: 500 } },
      { input: 'Hi', parameters: { stop_sequences: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] } },
      { input: 'Hi', parameters: { return_options: { top_n_tokens: 6 } } },
    ]) {
      expect(watsonxGenerateRequestSchema.safeParse(body).success).toBe(false);
    }
  });

  test('several problems come back as several errors, each with the same fresh trace', async () => {
    const res = await post(DEPLOY, { input: 'Hi', parameters: { top_k: 0, top_p: 5 } });
    const a = watsonxErrorSchema.parse(await res.json());
    expect(a.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('top_k'),
      expect.stringContaining('top_p'),
    ]);
    const b = watsonxErrorSchema.parse(await (await post(DEPLOY, { input: '' })).json());
    expect(b.trace).not.toBe(a.trace);
    expect(a.trace).toMatch(/^[0-9a-f]{32}$/);
  });

  test('an unknown path is a 404 in the watsonx error shape', async () => {
    for (const path of ['/ml/v1/nothing/here', '/somewhere/else']) {
      const res = await fetch(server.url + path);
      expect(res.status).toBe(404);
      expect(watsonxErrorSchema.parse(await res.json()).errors[0]!.code).toBe('not_found');
    }
  });

  test('a known path with the wrong method is a 405 naming the allowed one', async () => {
    const res = await fetch(server.url + DEPLOY);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    watsonxErrorSchema.parse(await res.json());
  });
});

describe('limits', () => {
  test('time_limit ends a slow generation with the text so far', async () => {
    await server.close();
    server = await startServer({ requestLog: { max: 1000 }, tokenDelayMs: 10 });
    const body = watsonxTextGenResponseSchema.parse(
      await (
        await post(DEPLOY, { input: 'Hi', parameters: { max_new_tokens: 1000, min_new_tokens: 1000, time_limit: 80 } })
      ).json(),
    );
    expect(body.results[0]!.stop_reason).toBe('time_limit');
    expect(body.results[0]!.generated_token_count).toBeGreaterThan(0);
    expect(body.results[0]!.generated_token_count).toBeLessThan(1000);
  });

  test('a body over 8 MB is refused with 413', async () => {
    const res = await post(DEPLOY, { input: 'x'.repeat(9 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(watsonxErrorSchema.parse(await res.json()).errors[0]!.code).toBe('request_entity_too_large');
  });
});

describe('lifecycle', () => {
  test('close() with a stream still open does not hang', async () => {
    await server.close();
    server = await startServer({ requestLog: { max: 1000 }, tokenDelayMs: 50 });
    const res = await post(
      DEPLOY_STREAM,
      { input: 'Hi', parameters: { max_new_tokens: 1000, min_new_tokens: 1000 } },
      { accept: 'text/event-stream' },
    );
    const reader = res.body!.getReader();
    await reader.read();
    await server.close();
    await expect(
      (async () => {
        while (!(await reader.read()).done);
      })(),
    ).rejects.toThrow();
  });

  test('a client that leaves mid-stream is noticed, and the server goes on serving', async () => {
    await server.close();
    let noticed!: () => void;
    const closed = new Promise<void>((resolve) => (noticed = resolve));
    server = await startServer({
      requestLog: { max: 1000 },
      tokenDelayMs: 20,
      log: (line) => line.includes('connection closed') && noticed(),
    });
    const res = await post(
      DEPLOY_STREAM,
      { input: 'Hi', parameters: { max_new_tokens: 1000, min_new_tokens: 1000 } },
      { accept: 'text/event-stream' },
    );
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    await closed;
    const next = await post(DEPLOY, { input: 'Hi', parameters: { max_new_tokens: 1 } });
    expect(next.status).toBe(200);
  });

  test('startServer listens on a free loopback port by default', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
