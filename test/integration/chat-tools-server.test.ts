/**
 * Tools and structured output on `serve`'s chat routes, spoken to over HTTP: for every flavour (watsonx foundation
 * model and deployment, Azure, OpenAI-compatible, Aleph Alpha) the whole answer and the stream in the vendor's shape
 * (test/contract/chat-schemas.ts), the tool-call delta framing (index, id, type and name first, then argument
 * fragments, then the finish reason), `n` choices, the history with tool results, and the fault switches on these
 * requests (a status, a stream dropped mid-call).
 */
import type { z } from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { SseEvent } from '../../src/contract/http.js';
import { type RunningServer, startServer } from '../../src/emulator/core/index.js';
import { SseParser } from '../../src/http/sse-parser.js';
import {
  chatCompletionChunkSchema,
  chatCompletionSchema,
  watsonxChatResponseSchema,
  watsonxChatStreamItemSchema,
} from '../contract/chat-schemas.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.faults.length = 0;
});

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const ASK = [{ role: 'user', content: 'Call get_weather, please.' }];

interface Flavour {
  name: string;
  path: string;
  streamPath: string;
  body: Record<string, unknown>;
  /** The stream is asked for with `stream: true` (else the path decides). */
  streamFlag: boolean;
  answer: z.ZodType;
  chunk: z.ZodType;
  done: boolean;
}

const V = '?version=2024-05-01';
const FLAVOURS: Flavour[] = [
  {
    name: 'watsonx foundation model',
    path: `/ml/v1/text/chat${V}`,
    streamPath: `/ml/v1/text/chat_stream${V}`,
    body: { model_id: 'ibm/granite-3-8b-instruct', space_id: 's' },
    streamFlag: false,
    answer: watsonxChatResponseSchema,
    chunk: watsonxChatStreamItemSchema,
    done: false,
  },
  {
    name: 'watsonx deployment',
    path: `/ml/v1/deployments/my-bot/text/chat${V}`,
    streamPath: `/ml/v1/deployments/my-bot/text/chat_stream${V}`,
    body: {},
    streamFlag: false,
    answer: watsonxChatResponseSchema,
    chunk: watsonxChatStreamItemSchema,
    done: false,
  },
  {
    name: 'Azure',
    path: '/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
    streamPath: '/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
    body: {},
    streamFlag: true,
    answer: chatCompletionSchema,
    chunk: chatCompletionChunkSchema,
    done: true,
  },
  {
    name: 'OpenAI-compatible',
    path: '/v1/chat/completions',
    streamPath: '/v1/chat/completions',
    body: { model: 'gpt-4o' },
    streamFlag: true,
    answer: chatCompletionSchema,
    chunk: chatCompletionChunkSchema,
    done: true,
  },
  {
    name: 'Aleph Alpha',
    path: '/chat/completions',
    streamPath: '/chat/completions',
    body: { model: 'llama-3.1-8b-instruct' },
    streamFlag: true,
    answer: chatCompletionSchema,
    chunk: chatCompletionChunkSchema,
    done: true,
  },
];

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function events(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}

function valid(schema: z.ZodType, value: unknown): string {
  const r = schema.safeParse(value);
  return r.success ? '' : JSON.stringify(r.error.issues);
}

interface Call {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}
interface Answer {
  choices: Array<{ index: number; message: { content?: string | null; tool_calls?: Call[] }; finish_reason: string }>;
  usage: { completion_tokens: number };
}
interface Chunk {
  choices: Array<{
    index: number;
    delta: { content?: string | null; tool_calls?: Array<Record<string, unknown>> };
    finish_reason?: string | null;
  }>;
}

describe.each(FLAVOURS)('$name', (f) => {
  const whole = (extra: Record<string, unknown>) => post(f.path, { ...f.body, messages: ASK, tools: TOOLS, ...extra });
  const streamed = (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
    post(
      f.streamPath,
      { ...f.body, messages: ASK, tools: TOOLS, ...(f.streamFlag ? { stream: true } : {}), ...extra },
      headers,
    );

  test('a whole answer: tool_calls in the vendor shape, finish_reason tool_calls', async () => {
    const res = await whole({});
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(valid(f.answer, answer)).toBe('');
    const choice = answer.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content ?? null).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(typeof (JSON.parse(call.function.arguments) as { city: unknown }).city).toBe('string');
    expect(answer.usage.completion_tokens).toBeGreaterThan(0);
  });

  test('streamed: index, id, type and name first, then argument fragments, then the finish reason', async () => {
    const ref = ((await (await whole({})).json()) as Answer).choices[0]!.message.tool_calls![0]!;
    const res = await streamed({});
    expect(res.status).toBe(200);
    const all = events(await res.text());
    if (f.done) expect(all.at(-1)!.data).toBe('[DONE]');
    else expect(all.some((e) => e.data === '[DONE]')).toBe(false);
    const chunks = all
      .filter((e) => e.data !== '[DONE]')
      .map((e) => JSON.parse(e.data) as Chunk)
      .filter((c) => c.choices.length > 0);
    for (const c of chunks) expect(valid(f.chunk, c)).toBe('');
    const deltas = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));
    expect(deltas[0]).toEqual({
      index: 0,
      id: ref.id,
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    for (const d of deltas.slice(1)) expect(Object.keys(d).sort()).toEqual(['function', 'index']);
    expect(deltas.map((d) => (d.function as { arguments: string }).arguments).join('')).toBe(ref.function.arguments);
    const finishes = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((r) => r);
    expect(finishes).toEqual(['tool_calls']);
  });

  test('json_schema, two choices: two documents of the schema', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 9 } }, required: ['n'] };
    const res = await post(f.path, {
      ...f.body,
      messages: ASK,
      n: 2,
      response_format: { type: 'json_schema', json_schema: { name: 'digit', schema } },
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(answer.choices.map((c) => c.index)).toEqual([0, 1]);
    for (const c of answer.choices) {
      expect(c.finish_reason).toBe('stop');
      const { n } = JSON.parse(c.message.content!) as { n: number };
      expect(Number.isInteger(n) && n >= 0 && n <= 9).toBe(true);
    }
  });

  test('the history with the call and its result: answered in words', async () => {
    const res = await post(f.path, {
      ...f.body,
      messages: [
        ...ASK,
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'snow' },
      ],
      tools: TOOLS,
      max_tokens: 5,
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(answer.choices[0]!.message.tool_calls).toBeUndefined();
    expect(answer.choices[0]!.message.content).toBeTruthy();
  });

  test('a status fault still applies, in the dialect of the route', async () => {
    const res = await post(
      f.path,
      { ...f.body, messages: ASK, tools: TOOLS },
      { 'x-textgen-fault': 'status:code=429' },
    );
    expect(res.status).toBe(429);
    await res.text();
  });

  test('a stream dropped mid-call ends after the events before the drop, with no finish reason', async () => {
    const full = events(await (await streamed({})).text()).length;
    const res = await streamed({}, { 'x-textgen-fault': 'drop:after=3' });
    const text = await res.text().catch(() => '');
    expect(events(text).length).toBeLessThanOrEqual(3);
    expect(full).toBeGreaterThan(3);
    expect(text).not.toContain('"finish_reason":"tool_calls"');
  });
});

describe('the checks, in each dialect', () => {
  test('watsonx: tool_choice_option and tool_choice together are refused', async () => {
    const res = await post(`/ml/v1/text/chat${V}`, {
      model_id: 'm',
      space_id: 's',
      messages: ASK,
      tools: TOOLS,
      tool_choice_option: 'required',
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ code: string; message: string }> };
    expect(body.errors[0]).toMatchObject({
      code: 'json_validation_error',
      message:
        "Json document validation error: only one of 'tool_choice_option' or 'tool_choice' may be given in the request body",
    });
  });

  test('watsonx: tool_choice_option without tools names that field', async () => {
    const res = await post(`/ml/v1/text/chat${V}`, {
      model_id: 'm',
      space_id: 's',
      messages: ASK,
      tool_choice_option: 'required',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ message: string }> };
    expect(body.errors[0]!.message).toBe(
      "Json document validation error: 'tool_choice_option' is only allowed when 'tools' are specified",
    );
  });

  test('watsonx and Aleph Alpha refuse parallel_tool_calls as an unknown field; OpenAI takes it', async () => {
    const wx = await post(`/ml/v1/text/chat${V}`, {
      model_id: 'm',
      space_id: 's',
      messages: ASK,
      tools: TOOLS,
      parallel_tool_calls: false,
    });
    expect(wx.status).toBe(400);
    const aa = await post('/chat/completions', {
      model: 'llama-3.1-8b-instruct',
      messages: ASK,
      tools: TOOLS,
      parallel_tool_calls: false,
    });
    expect(aa.status).toBe(400);
    expect(((await aa.json()) as { error: string }).error).toBe("Invalid request: unknown field 'parallel_tool_calls'");
    const oa = await post('/v1/chat/completions', {
      model: 'm',
      messages: ASK,
      tools: TOOLS,
      parallel_tool_calls: false,
    });
    expect(oa.status).toBe(200);
  });

  test("Aleph Alpha: a tool message must follow the assistant's call", async () => {
    const res = await post('/chat/completions', {
      model: 'llama-3.1-8b-instruct',
      messages: [...ASK, { role: 'tool', tool_call_id: 'x', content: 'y' }],
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "Invalid request: 'messages[1]' is a tool message that follows no assistant message",
      code: 'BAD_REQUEST',
    });
  });

  test('Azure: a bad tool name is its 400 with param', async () => {
    const res = await post('/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21', {
      messages: ASK,
      tools: [{ type: 'function', function: { name: 'a.b' } }],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; param: string } };
    expect(body.error.param).toBe('tools[0].function.name');
    expect(body.error.message).toBe(
      "Invalid 'tools[0].function.name': does not match the pattern '^[a-zA-Z0-9_-]{1,64}$'.",
    );
  });
});
