import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { SseParser } from '../../src/http/sse-parser.js';
import type { SseEvent } from '../../src/contract/http.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { azureOpenAiProtocol } from '../../profiles/openai/server/index.js';
import {
  completionsErrorSchema,
  completionsRequestSchema,
  completionsResponseSchema,
  schemaErrors,
} from '../contract/azure-openapi.js';

const AZURE = '/openai/deployments/demo/completions?api-version=2022-03-01-preview';
const V1 = '/v1/completions';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 }, protocols: [azureOpenAiProtocol] });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
  server.faults.length = 0;
});

interface Choice {
  text: string;
  index: number;
  logprobs: {
    tokens: string[];
    token_logprobs: (number | null)[];
    top_logprobs: (Record<string, number> | null)[];
    text_offset: number[];
  } | null;
  finish_reason: string | null;
}
interface Completion {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Choice[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A plain answer: 200, JSON, the request id header, and a body valid against the document's 200 schema. */
async function complete(path: string, body: Record<string, unknown>): Promise<{ res: Response; answer: Completion }> {
  if (path === AZURE) expect(schemaErrors(completionsRequestSchema(), body)).toBe('');
  const res = await post(path, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.get('apim-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  const answer = JSON.parse(text) as Completion;
  expect(schemaErrors(completionsResponseSchema(), answer)).toBe('');
  return { res, answer };
}

async function readStream(res: Response): Promise<{ events: SseEvent[]; broken: boolean }> {
  const reader = res.body!.getReader();
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let broken = false;
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(...parser.push(r.value));
    events.push(...parser.end());
  } catch {
    broken = true;
  }
  return { events, broken };
}

/** A streamed answer: every data message but [DONE] is a valid text_completion; none has an `event:` name. */
async function stream(path: string, body: Record<string, unknown>) {
  const res = await post(path, { ...body, stream: true });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  expect(res.headers.get('apim-request-id')).toBeTruthy();
  const { events } = await readStream(res);
  for (const e of events) expect(e.event).toBe('message');
  expect(events.at(-1)?.data).toBe('[DONE]');
  const messages = events.slice(0, -1).map((e) => JSON.parse(e.data) as Completion);
  for (const m of messages) expect(schemaErrors(completionsResponseSchema(), m)).toBe('');
  const texts = (index: number) =>
    messages.flatMap((m) => m.choices.filter((c) => c.index === index).map((c) => c.text)).join('');
  return { res, messages, texts };
}

async function expectError(res: Response, status: number, expected: Record<string, unknown>, schema = true) {
  expect(res.status).toBe(status);
  expect(res.headers.get('apim-request-id')).toBeTruthy();
  const body = (await res.json()) as { error: Record<string, unknown> };
  if (schema) expect(schemaErrors(completionsErrorSchema(), body)).toBe('');
  expect(body.error).toMatchObject(expected);
  return body.error;
}

describe('plain completions', () => {
  test('the Azure route answers a text_completion named after the deployment, with usage', async () => {
    const { answer } = await complete(AZURE, { prompt: 'Tell me about rivers', max_tokens: 12, temperature: 0 });
    expect(answer).toMatchObject({ object: 'text_completion', model: 'demo', choices: [{ index: 0, logprobs: null }] });
    expect(answer.id).toMatch(/^cmpl-\w+$/);
    expect(answer.usage!.prompt_tokens).toBe(4);
    expect(answer.usage!.completion_tokens).toBeLessThanOrEqual(12);
    expect(answer.usage!.total_tokens).toBe(answer.usage!.prompt_tokens + answer.usage!.completion_tokens);
    expect(['stop', 'length']).toContain(answer.choices[0]!.finish_reason);
  });

  test('the /v1 route answers the same, names the requested model and adds x-request-id', async () => {
    const body = { prompt: 'Tell me about rivers', max_tokens: 12, temperature: 0 };
    const { res, answer } = await complete(V1, { model: 'local-model', ...body });
    expect(answer.model).toBe('local-model');
    expect(res.headers.get('x-request-id')).toBe(res.headers.get('apim-request-id'));
    const azure = (await complete(AZURE, body)).answer;
    expect(answer.choices[0]!.text).toBe(azure.choices[0]!.text);
  });

  test('max_tokens defaults to 16 and ends with finish_reason length when the text runs on', async () => {
    const { answer } = await complete(AZURE, { prompt: 'forbidden fruit', temperature: 0, max_tokens: null });
    expect(answer.usage!.completion_tokens).toBeLessThanOrEqual(16);
  });

  test('logprobs N: parallel arrays spelling the text, at most N alternatives per token', async () => {
    const { answer } = await complete(AZURE, { prompt: 'Hello there', max_tokens: 10, temperature: 0, logprobs: 2 });
    const { text, logprobs } = answer.choices[0]!;
    expect(logprobs!.tokens.join('')).toBe(text);
    expect(logprobs!.token_logprobs).toHaveLength(logprobs!.tokens.length);
    expect(logprobs!.top_logprobs).toHaveLength(logprobs!.tokens.length);
    expect(logprobs!.text_offset).toEqual(logprobs!.tokens.map((_, i) => logprobs!.tokens.slice(0, i).join('').length));
    for (const [i, top] of logprobs!.top_logprobs.entries()) {
      expect(Object.keys(top!).length).toBeGreaterThan(0);
      expect(Object.keys(top!).length).toBeLessThanOrEqual(2);
      expect(Math.max(...Object.values(top!))).toBeGreaterThanOrEqual(logprobs!.token_logprobs[i]!);
    }
    expect(answer.usage!.completion_tokens).toBe(logprobs!.tokens.length);
  });

  test('logprobs 0: chosen tokens with their logprobs, no alternatives', async () => {
    const { answer } = await complete(AZURE, { prompt: 'Hello there', max_tokens: 5, temperature: 0, logprobs: 0 });
    const lp = answer.choices[0]!.logprobs!;
    expect(lp.token_logprobs.every((l) => typeof l === 'number')).toBe(true);
    expect(lp.top_logprobs.every((t) => t !== null && Object.keys(t).length === 0)).toBe(true);
  });

  test('echo puts the prompt first; with logprobs the first prompt token has null entries', async () => {
    const { answer } = await complete(AZURE, {
      prompt: 'Hello there',
      max_tokens: 5,
      temperature: 0,
      echo: true,
      logprobs: 1,
    });
    const { text, logprobs } = answer.choices[0]!;
    expect(text.startsWith('Hello there')).toBe(true);
    expect(logprobs!.tokens.slice(0, 2)).toEqual(['Hello', ' there']);
    expect(logprobs!.token_logprobs[0]).toBeNull();
    expect(logprobs!.top_logprobs[0]).toBeNull();
    expect(typeof logprobs!.token_logprobs[1]).toBe('number');
    expect(logprobs!.tokens.join('')).toBe(text);
  });

  test('n choices, indexed from 0; a prompt list gives n per prompt', async () => {
    const three = (await complete(AZURE, { prompt: 'Hi', max_tokens: 4, n: 3 })).answer;
    expect(three.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    const pairs = (await complete(AZURE, { prompt: ['Hi', 'Bye'], max_tokens: 4, n: 2, temperature: 0 })).answer;
    expect(pairs.choices.map((c) => c.index)).toEqual([0, 1, 2, 3]);
    const bye = (await complete(AZURE, { prompt: 'Bye', max_tokens: 1 })).answer;
    const hi = (await complete(AZURE, { prompt: 'Hi', max_tokens: 1 })).answer;
    expect(pairs.usage!.prompt_tokens).toBe(hi.usage!.prompt_tokens + bye.usage!.prompt_tokens);
  });

  test('token-id prompts are decoded', async () => {
    const byText = (await complete(AZURE, { prompt: 'Hello there', max_tokens: 6, temperature: 0, echo: true })).answer;
    const byIds = (await complete(AZURE, { prompt: [9906, 1070], max_tokens: 6, temperature: 0, echo: true })).answer;
    expect(byIds.choices[0]!.text).toBe(byText.choices[0]!.text);
  });

  test('stop: the text ends before the stop sequence, which it never contains, with finish_reason stop', async () => {
    const free = (await complete(AZURE, { prompt: 'A story about a garden', max_tokens: 30, temperature: 0 })).answer
      .choices[0]!.text;
    const words = free.trim().split(/\s+/);
    const stop = ` ${words[3]}`;
    const { answer } = await complete(AZURE, {
      prompt: 'A story about a garden',
      max_tokens: 30,
      temperature: 0,
      stop: [stop, 'never-there'],
    });
    expect(answer.choices[0]).toMatchObject({ text: free.slice(0, free.indexOf(stop)), finish_reason: 'stop' });
    const single = (await complete(AZURE, { prompt: 'A story about a garden', max_tokens: 30, temperature: 0, stop }))
      .answer;
    expect(single.choices[0]!.text).toBe(answer.choices[0]!.text);
  });

  test('best_of generates more candidates and returns the n best', async () => {
    const { answer } = await complete(AZURE, {
      prompt: 'Tell me about rivers',
      max_tokens: 8,
      n: 2,
      best_of: 4,
      logprobs: 0,
    });
    expect(answer.choices.map((c) => c.index)).toEqual([0, 1]);
    const returned = answer.choices.reduce((acc, c) => acc + c.logprobs!.tokens.length, 0);
    expect(answer.usage!.completion_tokens).toBeGreaterThan(returned);
  });

  test('output that would contain the filtered word stops before it with finish_reason content_filter', async () => {
    const { answer } = await complete(AZURE, {
      prompt: 'forbidden fruit',
      max_tokens: 60,
      temperature: 0,
      logprobs: 0,
    });
    const { text, finish_reason, logprobs } = answer.choices[0]!;
    expect(finish_reason).toBe('content_filter');
    expect(text).toBe(' Clearly, this');
    expect(logprobs!.tokens.join('')).toBe(text);
  });
});

describe('streamed completions', () => {
  test('the Azure route opens with a "choices": [] content-filter annotation and adds up to the plain answer', async () => {
    const body = { prompt: 'Tell me about rivers', max_tokens: 20, temperature: 0 };
    const plain = (await complete(AZURE, body)).answer.choices[0]!;
    const { messages, texts } = await stream(AZURE, body);
    expect(messages[0]).toMatchObject({
      choices: [],
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false } } }],
    });
    expect(texts(0)).toBe(plain.text);
    expect(messages.at(-1)!.choices[0]!.finish_reason).toBe(plain.finish_reason);
    expect(messages.slice(1, -1).every((m) => m.choices[0]!.finish_reason === null)).toBe(true);
  });

  test('the /v1 route has no annotation; stream_options.include_usage adds a last "choices": [] message with usage', async () => {
    const { res, messages } = await stream(V1, {
      model: 'm',
      prompt: 'Hello',
      max_tokens: 6,
      temperature: 0,
      stream_options: { include_usage: true },
    });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(messages[0]!.choices).toHaveLength(1);
    const last = messages.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 1 });
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
  });

  test('n choices interleave, one choice per message', async () => {
    const { messages, texts } = await stream(V1, { model: 'm', prompt: 'Hello', max_tokens: 6, n: 2, temperature: 0 });
    expect(messages.every((m) => m.choices.length === 1)).toBe(true);
    expect(messages.slice(0, 2).map((m) => m.choices[0]!.index)).toEqual([0, 1]);
    expect(texts(0)).toBe(texts(1));
  });

  test('echo and logprobs stream like the plain answer', async () => {
    const body = { prompt: 'Hello there', max_tokens: 8, temperature: 0, echo: true, logprobs: 2 };
    const plain = (await complete(AZURE, body)).answer.choices[0]!;
    const { messages, texts } = await stream(AZURE, body);
    const choices = messages.flatMap((m) => m.choices);
    expect(choices[0]).toMatchObject({
      text: 'Hello there',
      logprobs: { tokens: ['Hello', ' there'], token_logprobs: [null, expect.any(Number)] },
    });
    expect(texts(0)).toBe(plain.text);
    expect(choices.flatMap((c) => c.logprobs!.tokens)).toEqual(plain.logprobs!.tokens);
    expect(choices.flatMap((c) => c.logprobs!.text_offset)).toEqual(plain.logprobs!.text_offset);
  });

  test('the content filter ends a stream with finish_reason content_filter and never sends the word', async () => {
    const { messages, texts } = await stream(AZURE, { prompt: 'forbidden fruit', max_tokens: 60, temperature: 0 });
    expect(texts(0)).toBe(' Clearly, this');
    expect(messages.at(-1)!.choices[0]!.finish_reason).toBe('content_filter');
  });
});

describe("errors in the services' shapes", () => {
  test('a prompt with the trigger word is a 400 content_filter with the inner error', async () => {
    const error = await expectError(await post(AZURE, { prompt: 'Please say forbidden-words now' }), 400, {
      code: 'content_filter',
      param: 'prompt',
    });
    expect(error.message).toMatch(
      /^The response was filtered due to the prompt triggering Azure OpenAI's content management policy/,
    );
    expect(error.innererror).toMatchObject({
      code: 'ResponsibleAIPolicyViolation',
      content_filter_result: { violence: { filtered: true, severity: 'medium' } },
    });
  });

  test.each([
    {
      what: 'a missing api-version',
      path: '/openai/deployments/demo/completions',
      message: /api-version query parameter/,
    },
    {
      what: 'an empty api-version',
      path: '/openai/deployments/demo/completions?api-version=',
      message: /api-version query parameter/,
    },
    {
      what: 'a malformed api-version',
      path: '/openai/deployments/demo/completions?api-version=latest',
      message: /Unsupported api-version 'latest'/,
    },
  ])('$what is a 400 on the Azure route', async ({ path, message }) => {
    const error = await expectError(await post(path, { prompt: 'Hi' }), 400, {
      code: 'BadRequest',
      param: 'api-version',
    });
    expect(error.message).toMatch(message);
  });

  test.each([
    {
      body: { prompt: 'x', temperature: 2.5 },
      param: 'temperature',
      message: "2.5 is greater than the maximum of 2 - 'temperature'",
    },
    { body: { prompt: 'x', top_p: -0.1 }, param: 'top_p', message: "-0.1 is less than the minimum of 0 - 'top_p'" },
    {
      body: { prompt: 'x', max_tokens: 'ten' },
      param: 'max_tokens',
      message: `"ten" is not of type 'integer' - 'max_tokens'`,
    },
    { body: { prompt: 'x', n: 0 }, param: 'n', message: "0 is less than the minimum of 1 - 'n'" },
    {
      body: { prompt: 'x', logprobs: 101 },
      param: 'logprobs',
      message: "101 is greater than the maximum of 100 - 'logprobs'",
    },
    {
      body: { prompt: 'x', stop: ['a', 'b', 'c', 'd', 'e'] },
      param: 'stop',
      message: `["a","b","c","d","e"] is too long - 'stop'`,
    },
    {
      body: { prompt: { text: 'x' } },
      param: 'prompt',
      message: `{"text":"x"} is not valid under any of the given schemas - 'prompt'`,
    },
    { body: { prompt: 'x', echo: 'yes' }, param: 'echo', message: `"yes" is not of type 'boolean' - 'echo'` },
    {
      body: { prompt: 'x', logit_bias: { abc: 1 } },
      param: 'logit_bias',
      message: "Invalid key in 'logit_bias': abc. You should only be submitting non-negative integers.",
    },
    {
      body: { prompt: 'x', n: 3, best_of: 2 },
      param: 'best_of',
      message: 'best_of must be greater than or equal to n, got best_of 2 and n 3',
    },
    {
      body: { prompt: 'x', stream: true, best_of: 2 },
      param: 'best_of',
      message: 'Cannot stream results with best_of greater than 1',
    },
    {
      body: { prompt: 'x', stream_options: { include_usage: true } },
      param: 'stream_options',
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    },
  ])('$message', async ({ body, param, message }) => {
    await expectError(await post(AZURE, body), 400, { type: 'invalid_request_error', param, message });
  });

  test('an unknown field is refused by name (no param on Azure)', async () => {
    const error = await expectError(await post(AZURE, { prompt: 'x', max_new_tokens: 5 }), 400, {
      message: 'Unrecognized request argument supplied: max_new_tokens',
    });
    expect(error).not.toHaveProperty('param');
  });

  test.each([
    { body: 'not json', message: 'We could not parse the JSON body of your request.' },
    { body: '', message: 'The request body is empty: expected a JSON object' },
    { body: '[1,2]', message: 'The request body must be a JSON object' },
  ])('body $body → $message', async ({ body, message }) => {
    await expectError(await post(AZURE, body), 400, { message });
  });

  test("/v1 errors keep OpenAI's nulls; a missing model and logprobs above 5 are refused", async () => {
    const noModel = await post(V1, { prompt: 'x' });
    expect(noModel.headers.get('x-request-id')).toBeTruthy();
    await expectError(
      noModel,
      400,
      { message: 'you must provide a model parameter', type: 'invalid_request_error', param: null, code: null },
      false,
    );
    await expectError(await post(V1, { model: 'm', prompt: 'x', logprobs: 6 }), 400, { param: 'logprobs' }, false);
  });

  test('unknown paths and methods get the Azure shape too', async () => {
    await expectError(await post('/openai/deployments/demo/chat/completions?api-version=2024-10-21', {}), 404, {
      code: 'not_found',
    });
    const res = await fetch(`${server.url}${AZURE}`);
    expect(res.headers.get('allow')).toBe('POST');
    await expectError(res, 405, { code: 'method_not_allowed' });
  });
});

describe('fault switches', () => {
  test("a 429 with Retry-After and retry-after-ms in Azure's words, then normal service", async () => {
    server.faults.push({ kind: 'status', status: 429, retryAfter: '2', retryAfterMs: 1500 });
    const res = await post(AZURE, { prompt: 'Hi', max_tokens: 2 });
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.headers.get('retry-after-ms')).toBe('1500');
    const error = await expectError(res, 429, { code: '429' });
    expect(error.message).toMatch(/exceeded call rate limit.*Please retry after 2 seconds\.$/);
    expect((await post(AZURE, { prompt: 'Hi', max_tokens: 2 })).status).toBe(200);
  });

  test('a 503 with a custom body is sent as given; validation errors come before faults', async () => {
    server.faults.push({ kind: 'status', status: 503, body: 'upstream unavailable' });
    await expectError(await post(AZURE, { prompt: 'x', n: 0 }), 400, { param: 'n' });
    const res = await post(AZURE, { prompt: 'Hi' });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('upstream unavailable');
  });

  test('stream-error: a data-only {"error":…} message inside the 200 stream, no [DONE]', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 3 });
    const res = await post(AZURE, { prompt: 'Tell me a long story', max_tokens: 30, temperature: 0, stream: true });
    const { events } = await readStream(res);
    expect(events).toHaveLength(4);
    expect(events.every((e) => e.event === 'message')).toBe(true);
    const last = JSON.parse(events[3]!.data) as { error: unknown };
    expect(schemaErrors(completionsErrorSchema(), last)).toBe('');
    expect(last.error).toMatchObject({ code: 'InternalServerError' });
  });

  test('malformed: a data line that is not JSON, then the stream goes on', async () => {
    server.faults.push({ kind: 'malformed', afterEvents: 2 });
    const { events } = await readStream(await post(V1, { model: 'm', prompt: 'Hi', max_tokens: 5, stream: true }));
    expect(() => JSON.parse(events[2]!.data)).toThrow();
    expect(events.at(-1)!.data).toBe('[DONE]');
  });

  test('drop mid-stream cuts the connection after the events sent', async () => {
    server.faults.push({ kind: 'drop', afterEvents: 2 });
    const { events, broken } = await readStream(
      await post(AZURE, { prompt: 'Tell me a long story', max_tokens: 30, stream: true }),
    );
    expect(broken).toBe(true);
    expect(events).toHaveLength(2);
  });
});

describe('auth with requireAuth', () => {
  let secured: RunningServer;
  beforeAll(async () => {
    secured = await startServer({
      requestLog: { max: 1000 },
      protocols: [azureOpenAiProtocol],
      requireAuth: true,
      apiKeys: ['k1', 'k2'],
    });
  });
  afterAll(async () => {
    await secured.close();
  });
  const call = (
    path: string,
    headers: Record<string, string>,
    body: Record<string, unknown> = { prompt: 'Hi', max_tokens: 2 },
  ) =>
    fetch(secured.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  test.each<{ what: string; headers: Record<string, string> }>([
    { what: 'api-key', headers: { 'api-key': 'k2' } },
    { what: 'a bearer token', headers: { authorization: 'Bearer k1' } },
  ])('$what with a known key is served on the Azure routes', async ({ headers }) => {
    expect((await call(AZURE, headers)).status).toBe(200);
  });

  test("the OpenAI /v1 routes take only Authorization: Bearer, as OpenAI does: Azure's api-key header is a 401", async () => {
    const body = { model: 'm', prompt: 'Hi', max_tokens: 2 };
    expect((await call(V1, { authorization: 'Bearer k1' }, body)).status).toBe(200);
    const refused = await call(V1, { 'api-key': 'k2' }, body);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });

  test.each<{ what: string; headers: Record<string, string> }>([
    { what: 'no credentials', headers: {} },
    { what: 'an unknown api-key', headers: { 'api-key': 'nope' } },
    { what: 'an unknown bearer token', headers: { authorization: 'Bearer nope' } },
    { what: 'a key under the wrong scheme', headers: { authorization: 'Basic k1' } },
  ])("$what is a 401 in Azure's shape (before any other check)", async ({ headers }) => {
    // A JSON content type: serve refuses other types (415) before a route, and so before its auth, looks at them.
    const res = await fetch(`${secured.url}/openai/deployments/d/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: 'not json',
    });
    const error = await expectError(res, 401, { code: '401' });
    expect(error.message).toMatch(/^Access denied due to invalid subscription key/);
  });

  test("/v1 answers 401 in OpenAI's shape", async () => {
    const res = await call(V1, {}, { model: 'm', prompt: 'Hi' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    await expectError(res, 401, { code: 'invalid_api_key', type: 'invalid_request_error', param: null }, false);
  });
});
