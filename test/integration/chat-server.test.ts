/**
 * `serve`'s chat routes, spoken to over HTTP: every route of every flavour, whole and streamed, against the vendors'
 * answer shapes (test/contract/chat-schemas.ts); the answer written from the conversation; the services' checks
 * (credentials, version, body, order rules) in their own error shapes; a stream fault mid-answer.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { SseParser } from '../../src/http/sse-parser.js';
import type { SseEvent } from '../../src/contract/http.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import {
  chatCompletionChunkSchema,
  chatCompletionSchema,
  watsonxChatResponseSchema,
  watsonxChatStreamItemSchema,
} from '../contract/chat-schemas.js';
import type { z } from 'zod';

let server: RunningServer;
let authed: RunningServer;
beforeAll(async () => {
  [server, authed] = await Promise.all([
    startServer({ requestLog: { max: 1000 } }),
    startServer({ requestLog: { max: 1000 }, requireAuth: true }),
  ]);
});
afterAll(async () => {
  await Promise.all([server.close(), authed.close()]);
});
afterEach(() => {
  server.requests.length = 0;
  server.faults.length = 0;
});

const MESSAGES = [
  { role: 'system', content: 'Answer briefly.' },
  { role: 'user', content: 'Name a river.' },
];

async function post(path: string, body: unknown, headers: Record<string, string> = {}, on = server): Promise<Response> {
  return fetch(on.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

interface Answer {
  choices: Array<{
    index: number;
    message: { content: string };
    finish_reason: string;
    logprobs: { content: Array<{ top_logprobs: unknown[] }> };
  }>;
  usage: { prompt_tokens: number; completion_tokens: number };
}

async function answerOf(res: Response): Promise<Answer> {
  return (await res.json()) as Answer;
}

/** An error answer's body: the protocols word errors differently, and each test reads the fields its one has. */
async function errorOf(
  res: Response,
): Promise<{ errors: Array<{ code: string; message: string }>; error: { param: string } & string; code: string }> {
  return (await res.json()) as never;
}

async function events(res: Response): Promise<SseEvent[]> {
  const parser = new SseParser();
  const out: SseEvent[] = [];
  for (const e of parser.push(await res.text())) out.push(e);
  for (const e of parser.end()) out.push(e);
  return out;
}

function valid(schema: z.ZodType, value: unknown): string {
  const r = schema.safeParse(value);
  return r.success ? '' : JSON.stringify(r.error.issues);
}

interface Flavour {
  name: string;
  path: string;
  body: Record<string, unknown>;
  stream: { path: string; body: Record<string, unknown> };
  answer: z.ZodType;
  chunk: z.ZodType;
  /** Ends with `data: [DONE]`. */
  done: boolean;
}

const FLAVOURS: Flavour[] = [
  {
    name: 'watsonx foundation model',
    path: '/ml/v1/text/chat?version=2024-05-01',
    body: { model_id: 'ibm/granite-3-8b-instruct', space_id: 's', messages: MESSAGES, max_tokens: 12, temperature: 0 },
    stream: {
      path: '/ml/v1/text/chat_stream?version=2024-05-01',
      body: {
        model_id: 'ibm/granite-3-8b-instruct',
        space_id: 's',
        messages: MESSAGES,
        max_tokens: 12,
        temperature: 0,
      },
    },
    answer: watsonxChatResponseSchema,
    chunk: watsonxChatStreamItemSchema,
    done: false,
  },
  {
    name: 'watsonx deployment',
    path: '/ml/v1/deployments/my-bot/text/chat?version=2024-05-01',
    body: { messages: MESSAGES, max_tokens: 12, temperature: 0 },
    stream: {
      path: '/ml/v1/deployments/my-bot/text/chat_stream?version=2024-05-01',
      body: { messages: MESSAGES, max_tokens: 12, temperature: 0 },
    },
    answer: watsonxChatResponseSchema,
    chunk: watsonxChatStreamItemSchema,
    done: false,
  },
  {
    name: 'Azure OpenAI',
    path: '/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
    body: { messages: MESSAGES, max_tokens: 12, temperature: 0 },
    stream: {
      path: '/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
      body: {
        messages: MESSAGES,
        max_tokens: 12,
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true },
      },
    },
    answer: chatCompletionSchema,
    chunk: chatCompletionChunkSchema,
    done: true,
  },
  {
    name: 'OpenAI-compatible',
    path: '/v1/chat/completions',
    body: { model: 'llama3', messages: MESSAGES, max_tokens: 12, temperature: 0 },
    stream: {
      path: '/v1/chat/completions',
      body: {
        model: 'llama3',
        messages: MESSAGES,
        max_tokens: 12,
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true },
      },
    },
    answer: chatCompletionSchema,
    chunk: chatCompletionChunkSchema,
    done: true,
  },
  {
    name: 'Aleph Alpha',
    path: '/chat/completions',
    body: { model: 'llama-3.1-8b-instruct', messages: MESSAGES, max_tokens: 12, temperature: 0 },
    stream: {
      path: '/chat/completions',
      body: {
        model: 'llama-3.1-8b-instruct',
        messages: MESSAGES,
        max_tokens: 12,
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true },
      },
    },
    answer: chatCompletionSchema,
    chunk: chatCompletionChunkSchema,
    done: true,
  },
];

describe.each(FLAVOURS)('$name', (f) => {
  test("a whole answer in the vendor's shape, the same one streamed", async () => {
    const res = await post(f.path, f.body);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>;
      usage: { completion_tokens: number };
    };
    expect(valid(f.answer, answer)).toBe('');
    const text = answer.choices[0]!.message.content;
    expect(text.length).toBeGreaterThan(0);
    expect(answer.usage.completion_tokens).toBeGreaterThan(0);

    const streamed = await post(f.stream.path, f.stream.body);
    expect(streamed.headers.get('content-type')).toMatch(/text\/event-stream/);
    const list = await events(streamed);
    const data = list.map((e) => e.data);
    expect(data[data.length - 1] === '[DONE]').toBe(f.done);
    const chunks = data
      .filter((d) => d !== '[DONE]')
      .map(
        (d) =>
          JSON.parse(d) as {
            choices: Array<{ delta: { content?: string }; finish_reason: string | null }>;
            usage?: unknown;
            prompt_filter_results?: unknown;
          },
      );
    // Azure's opening prompt-filter annotation is not a chunk of the answer.
    const answerChunks = chunks.filter((c) => c.prompt_filter_results === undefined);
    for (const c of answerChunks) expect(valid(f.chunk, c)).toBe('');
    expect(answerChunks.flatMap((c) => c.choices.map((x) => x.delta.content ?? '')).join('')).toBe(text);
    expect(answerChunks.flatMap((c) => c.choices.map((x) => x.finish_reason)).filter(Boolean)).toEqual([
      answer.choices[0]!.finish_reason,
    ]);
    expect(answerChunks.some((c) => c.usage !== undefined && c.usage !== null)).toBe(true);
  });

  test('the answer is written from the conversation: same history, same answer; other history, other answer', async () => {
    const again = await answerOf(await post(f.path, f.body));
    const first = await answerOf(await post(f.path, f.body));
    expect(again.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    const longer = {
      ...f.body,
      messages: [
        ...MESSAGES,
        { role: 'assistant', content: 'The Rhine.' },
        { role: 'user', content: 'Another one, please.' },
      ],
    };
    const other = await answerOf(await post(f.path, longer));
    expect(other.choices[0]!.message.content).not.toBe(first.choices[0]!.message.content);
    expect(other.usage.prompt_tokens).toBeGreaterThan(first.usage.prompt_tokens);
  });

  test('n answers, logprobs with alternatives when asked', async () => {
    const res = await post(f.path, { ...f.body, n: 2, temperature: 0.8, logprobs: true, top_logprobs: 2 });
    expect(res.status).toBe(200);
    const answer = await answerOf(res);
    expect(answer.choices.map((c) => c.index)).toEqual([0, 1]);
    const lp = answer.choices[0]!.logprobs.content;
    expect(lp.length).toBeGreaterThan(0);
    expect(lp[0]!.top_logprobs).toHaveLength(2);
  });

  test("a stream fault after two events: the error event in the protocol's own shape", async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 2 });
    const list = await events(await post(f.stream.path, f.stream.body));
    const last = list[list.length - 1]!;
    const body = JSON.parse(last.data) as Record<string, unknown>;
    expect(body.errors ?? body.error).toBeDefined();
  });

  test('without credentials, when the server requires them: 401', async () => {
    const res = await post(f.path, f.body, {}, authed);
    expect(res.status).toBe(401);
  });
});

describe("the services' own checks", () => {
  test('watsonx: a model call without a project or space, and an unknown field, are 400 json_validation_error', async () => {
    const res = await post('/ml/v1/text/chat?version=2024-05-01', { model_id: 'm', messages: MESSAGES });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).errors[0].message).toMatch(/project_id.*space_id/);
    const unknown = await post('/ml/v1/text/chat?version=2024-05-01', {
      model_id: 'm',
      space_id: 's',
      messages: MESSAGES,
      top_k: 3,
    });
    expect((await errorOf(unknown)).errors[0]).toMatchObject({
      code: 'json_validation_error',
      message: expect.stringMatching(/'top_k' is not a recognized field/),
    });
    const noVersion = await post('/ml/v1/text/chat', { model_id: 'm', space_id: 's', messages: MESSAGES });
    expect(noVersion.status).toBe(400);
  });

  test('Azure: chat with an api-version before chat existed is 404; without one, 400', async () => {
    const old = await post('/openai/deployments/d/chat/completions?api-version=2022-03-01-preview', {
      messages: MESSAGES,
    });
    expect(old.status).toBe(404);
    const none = await post('/openai/deployments/d/chat/completions', { messages: MESSAGES });
    expect(none.status).toBe(400);
  });

  test('OpenAI: no model, more than four stops, top_logprobs without logprobs: 400 naming the parameter', async () => {
    expect((await errorOf(await post('/v1/chat/completions', { messages: MESSAGES }))).error.param).toBe('model');
    expect(
      (
        await errorOf(
          await post('/v1/chat/completions', { model: 'm', messages: MESSAGES, stop: ['a', 'b', 'c', 'd', 'e'] }),
        )
      ).error.param,
    ).toBe('stop');
    expect(
      (await errorOf(await post('/v1/chat/completions', { model: 'm', messages: MESSAGES, top_logprobs: 2 }))).error
        .param,
    ).toBe('top_logprobs');
  });

  test('Aleph Alpha: the order rule, seed and unknown models are refused in its own error shape', async () => {
    const order = await post('/chat/completions', {
      model: 'llama-3.1-8b-instruct',
      messages: [{ role: 'assistant', content: 'Hi' }],
    });
    expect(order.status).toBe(400);
    expect(await errorOf(order)).toMatchObject({ code: 'BAD_REQUEST', error: expect.stringMatching(/user message/) });
    const seed = await post('/chat/completions', { model: 'llama-3.1-8b-instruct', messages: MESSAGES, seed: 1 });
    expect(await errorOf(seed)).toMatchObject({ code: 'BAD_REQUEST', error: expect.stringMatching(/seed/) });
    const model = await post('/chat/completions', { model: 'gpt-4', messages: MESSAGES });
    expect(model.status).toBe(404);
    expect((await errorOf(model)).code).toBe('UNKNOWN_MODEL');
  });
});
