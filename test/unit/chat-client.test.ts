/**
 * The chat mapping of every adapter that has one: the exact wire request (plain and streamed) for one representative
 * conversation, each checked against the vendor's contract (test/contract/chat-schemas.ts); whole answers and stream
 * events read into the one canonical shape; wrong shapes as UnexpectedAnswer.
 */
import { describe, expect, test } from 'vitest';
import type { ChatRequest } from '../../src/contract/chat.js';
import { UnexpectedAnswer, UsageError } from '../../src/contract/errors.js';
import { adapterFor } from '../../profiles/registry.js';
import type { ChatOperation } from '../../src/contract/adapter.js';
import { testProfile } from '../helpers/profile.js';
import {
  alephAlphaChatRequestSchema,
  azureChatRequestSchema,
  openAiChatRequestSchema,
  watsonxChatRequestSchema,
  watsonxDeploymentChatRequestSchema,
} from '../contract/chat-schemas.js';
import type { z } from 'zod';

const conversation: ChatRequest = {
  messages: [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: 'Name a river.' },
    { role: 'assistant', content: 'The Rhine.' },
    { role: 'user', content: 'Another one?' },
  ],
  parameters: { max_tokens: 40, temperature: 0.5, top_p: 0.9, stop: ['\n\n'], n: 2, top_logprobs: 3 },
};
const MESSAGES = conversation.messages;
const SAMPLING = {
  max_tokens: 40,
  temperature: 0.5,
  top_p: 0.9,
  stop: ['\n\n'],
  n: 2,
  logprobs: true,
  top_logprobs: 3,
};

async function chatOf(kind: 'watsonx' | 'azure-openai' | 'openai' | 'aleph-alpha'): Promise<ChatOperation> {
  const load = adapterFor(kind).chat;
  if (!load) throw new Error(`${kind} has no chat`);
  return load();
}

function valid(schema: z.ZodType, body: unknown): string {
  const r = schema.safeParse(body);
  return r.success ? '' : JSON.stringify(r.error.issues);
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const SSE_HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' };

describe('the wire request of each provider, plain and streamed', () => {
  test('watsonx foundation model: /ml/v1/text/chat and chat_stream, model_id and the space', async () => {
    const op = await chatOf('watsonx');
    const profile = testProfile({ url: 'https://us-south.ml.cloud.ibm.com', settings: { spaceId: 'sp-1' } });
    const body = { model_id: 'ibm/granite-3-8b-instruct', space_id: 'sp-1', messages: MESSAGES, ...SAMPLING };
    for (const stream of [false, true]) {
      const spec = op.build(conversation, { model: 'ibm/granite-3-8b-instruct', stream }, profile);
      expect(spec).toEqual({
        method: 'POST',
        url: `https://us-south.ml.cloud.ibm.com/ml/v1/text/${stream ? 'chat_stream' : 'chat'}?version=2024-05-01`,
        headers: stream ? SSE_HEADERS : JSON_HEADERS,
        body: JSON.stringify(body),
      });
      expect(valid(watsonxChatRequestSchema, JSON.parse(spec.body!))).toBe('');
    }
  });

  test('watsonx deployment: /ml/v1/deployments/{id_or_name}/text/chat[_stream], no model and no scope', async () => {
    const op = await chatOf('watsonx');
    const profile = testProfile({
      url: 'https://cpd.example',
      settings: { projectId: 'p-1' },
      apiVersion: '2025-02-11',
    });
    for (const stream of [false, true]) {
      const spec = op.build(conversation, { deployment: 'my chat/bot', stream }, profile);
      expect(spec.url).toBe(
        `https://cpd.example/ml/v1/deployments/my%20chat%2Fbot/text/${stream ? 'chat_stream' : 'chat'}?version=2025-02-11`,
      );
      expect(spec.headers).toEqual(stream ? SSE_HEADERS : JSON_HEADERS);
      expect(JSON.parse(spec.body!)).toEqual({ messages: MESSAGES, ...SAMPLING });
      expect(valid(watsonxDeploymentChatRequestSchema, JSON.parse(spec.body!))).toBe('');
    }
  });

  test('watsonx without a space or project is a usage error before anything is sent', async () => {
    const op = await chatOf('watsonx');
    expect(() => op.build(conversation, { model: 'm', stream: false }, testProfile())).toThrow(UsageError);
  });

  test('azure-openai: the deployment in the path, the chat api-version, stream_options on streams', async () => {
    const op = await chatOf('azure-openai');
    const profile = testProfile({
      provider: 'azure-openai',
      url: 'https://myres.openai.azure.com/openai/',
      apiVersion: '2022-03-01-preview',
    });
    for (const stream of [false, true]) {
      const spec = op.build(conversation, { model: 'gpt-4o', stream }, profile);
      // The profile's api_version is for completions: chat keeps its own default.
      expect(spec.url).toBe(
        'https://myres.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
      );
      expect(spec.headers).toEqual(stream ? SSE_HEADERS : JSON_HEADERS);
      const body = JSON.parse(spec.body!);
      expect(body).toEqual({
        messages: MESSAGES,
        ...SAMPLING,
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      });
      expect(valid(azureChatRequestSchema, body)).toBe('');
    }
  });

  test('azure-openai: --api-version (chatApiVersion) wins; before 2024-08-01 a stream asks for no usage', async () => {
    const op = await chatOf('azure-openai');
    const profile = testProfile({
      provider: 'azure-openai',
      url: 'https://r.example',
      settings: { chatApiVersion: '2024-02-01' },
    });
    const spec = op.build(conversation, { model: 'd', stream: true }, profile);
    expect(spec.url).toBe('https://r.example/openai/deployments/d/chat/completions?api-version=2024-02-01');
    expect(JSON.parse(spec.body!).stream_options).toBeUndefined();
  });

  test('openai: /v1/chat/completions with the model in the body, whether or not the URL ends in /v1', async () => {
    const op = await chatOf('openai');
    for (const [url, stream] of [
      ['http://localhost:8000', false],
      ['http://localhost:8000/v1/', true],
    ] as const) {
      const spec = op.build(conversation, { model: 'llama3', stream }, testProfile({ provider: 'openai', url }));
      expect(spec.url).toBe('http://localhost:8000/v1/chat/completions');
      expect(spec.headers).toEqual(stream ? SSE_HEADERS : JSON_HEADERS);
      const body = JSON.parse(spec.body!);
      expect(body).toEqual({
        model: 'llama3',
        messages: MESSAGES,
        ...SAMPLING,
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      });
      expect(valid(openAiChatRequestSchema, body)).toBe('');
    }
  });

  test('aleph-alpha: /chat/completions with the model in the body', async () => {
    const op = await chatOf('aleph-alpha');
    const profile = testProfile({
      provider: 'aleph-alpha',
      url: 'https://api.aleph-alpha.com',
      settings: { streaming: false, chat: true },
    });
    for (const stream of [false, true]) {
      const spec = op.build(conversation, { model: 'llama-3.1-8b-instruct', stream }, profile);
      expect(spec.url).toBe('https://api.aleph-alpha.com/chat/completions');
      expect(spec.headers).toEqual(stream ? SSE_HEADERS : JSON_HEADERS);
      const body = JSON.parse(spec.body!);
      expect(body).toEqual({
        model: 'llama-3.1-8b-instruct',
        messages: MESSAGES,
        ...SAMPLING,
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      });
      expect(valid(alephAlphaChatRequestSchema, body)).toBe('');
    }
  });

  test('aleph-alpha: a profile without chat: true says why chat is unavailable; seed is not carried', async () => {
    const op = await chatOf('aleph-alpha');
    expect(op.unavailable?.(testProfile({ provider: 'aleph-alpha' }))?.message).toMatch(/chat route/);
    expect(
      op.unavailable?.(testProfile({ provider: 'aleph-alpha', settings: { streaming: false, chat: true } })),
    ).toBeUndefined();
    expect(op.capabilities.parameters.seed).toBe('unsupported');
  });

  test('open-inference has no chat, and its adapter says where chat is', () => {
    const adapter = adapterFor('open-inference');
    expect(adapter.chat).toBeUndefined();
    expect(adapter.missingChatHint).toMatch(/provider openai/);
  });
});

describe('answers into the canonical result', () => {
  test('an OpenAI chat.completion, choices sorted, logprobs, usage and time', async () => {
    const op = await chatOf('openai');
    const result = op.parse(
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1700000000,
        model: 'llama3',
        choices: [
          { index: 1, message: { role: 'assistant', content: 'The Nile.' }, finish_reason: 'length', logprobs: null },
          {
            index: 0,
            message: { role: 'assistant', content: 'The Po.' },
            finish_reason: 'stop',
            logprobs: {
              content: [
                {
                  token: 'The',
                  logprob: -0.1,
                  bytes: [84],
                  top_logprobs: [{ token: 'The', logprob: -0.1, bytes: null }],
                },
              ],
            },
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
      },
      conversation,
    );
    expect(result).toEqual({
      provider: 'openai',
      id: 'chatcmpl-1',
      model: 'llama3',
      created_at: '2023-11-14T22:13:20.000Z',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'The Po.' },
          finish_reason: 'stop',
          logprobs: [{ token: 'The', logprob: -0.1, top_logprobs: [{ token: 'The', logprob: -0.1 }] }],
        },
        { index: 1, message: { role: 'assistant', content: 'The Nile.' }, finish_reason: 'length' },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
    });
  });

  test('a watsonx answer names its model model_id and has created_at', async () => {
    const op = await chatOf('watsonx');
    const result = op.parse(
      {
        id: 'chat-1',
        model_id: 'ibm/granite',
        created: 1,
        created_at: '2025-01-01T00:00:00.000Z',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3 },
      },
      conversation,
    );
    expect(result).toMatchObject({
      provider: 'watsonx',
      model: 'ibm/granite',
      created_at: '2025-01-01T00:00:00.000Z',
      usage: { prompt_tokens: 3 },
    });
  });

  test('a 2xx of the wrong shape is an UnexpectedAnswer naming what is missing', async () => {
    for (const kind of ['watsonx', 'azure-openai', 'openai', 'aleph-alpha'] as const) {
      const op = await chatOf(kind);
      expect(() => op.parse({ results: [] }, conversation)).toThrow(UnexpectedAnswer);
      expect(() => op.parse({ choices: [{ index: 0 }] }, conversation)).toThrow(/no "message" object/);
      expect(() => op.parse({ choices: [{ message: { content: 5 } }] }, conversation)).toThrow(/not a string/);
    }
  });

  test('an Azure content-filter finish becomes a warning', async () => {
    const op = await chatOf('azure-openai');
    const r = op.parse(
      { choices: [{ index: 0, message: { role: 'assistant', content: 'Par' }, finish_reason: 'content_filter' }] },
      conversation,
    );
    expect(r.warnings?.[0]?.id).toBe('content_filter');
  });
});

describe('stream events into canonical chunks', () => {
  const event = (data: string, name = 'message') => ({ event: name, data, id: undefined, retry: undefined });

  test('OpenAI-shaped: role delta, content deltas, finish, usage chunk, [DONE]', async () => {
    const decode = (await chatOf('openai')).decoder(conversation);
    const base = { id: 'c1', object: 'chat.completion.chunk', created: 1700000000, model: 'llama3' };
    expect(
      decode(
        event(
          JSON.stringify({
            ...base,
            choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
          }),
        ),
      ),
    ).toMatchObject({
      type: 'chunk',
      chunk: { provider: 'openai', choices: [{ index: 0, content: '' }] },
    });
    expect(
      decode(
        event(JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: 'The' }, finish_reason: null }] })),
      ),
    ).toMatchObject({
      type: 'chunk',
      chunk: { choices: [{ index: 0, content: 'The' }] },
    });
    expect(
      decode(event(JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }))),
    ).toMatchObject({
      chunk: { choices: [{ index: 0, content: '', finish_reason: 'stop' }] },
    });
    expect(
      decode(
        event(
          JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }),
        ),
      ),
    ).toMatchObject({
      chunk: { choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } },
    });
    expect(decode(event('[DONE]'))).toEqual({ type: 'end' });
  });

  test("Azure's prompt-filter annotation is ignored; an error payload in the stream is an error step", async () => {
    const decode = (await chatOf('azure-openai')).decoder(conversation);
    expect(
      decode(
        event(JSON.stringify({ id: '', object: '', created: 0, model: '', prompt_filter_results: [], choices: [] })),
      ),
    ).toEqual({ type: 'ignore' });
    expect(decode(event(JSON.stringify({ error: { code: 'InternalServerError', message: 'boom' } })))).toMatchObject({
      type: 'error',
      code: 'InternalServerError',
      message: 'boom',
    });
    expect(decode(event('{"choices":[{"delta":'))).toMatchObject({ type: 'error', code: 'malformed_event' });
  });

  test('watsonx: event: error with its errors array; the model_id names the model', async () => {
    const decode = (await chatOf('watsonx')).decoder(conversation);
    expect(
      decode(
        event(
          JSON.stringify({
            id: 'x',
            model_id: 'ibm/granite',
            created: 1,
            choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }],
          }),
        ),
      ),
    ).toMatchObject({
      chunk: { provider: 'watsonx', model: 'ibm/granite', choices: [{ content: 'Hi' }] },
    });
    expect(
      decode(
        event(JSON.stringify({ errors: [{ code: 'internal_server_error', message: 'stopped' }], trace: 't' }), 'error'),
      ),
    ).toMatchObject({
      type: 'error',
      code: 'internal_server_error',
    });
  });
});
