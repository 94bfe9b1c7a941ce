/**
 * `chat` over the Responses API, mapped: the wire request of a conversation with tools, tool results and a JSON
 * schema (checked against test/contract/responses-schemas.ts), whole answers with text or function calls read into
 * the canonical result with their finish reasons, the typed stream events decoded into canonical chunks (tool-call
 * deltas by index), and wrong shapes as UnexpectedAnswer.
 */
import { describe, expect, test } from 'vitest';
import type { ChatRequest } from '../../src/contract/chat.js';
import type { ChatOperation } from '../../src/contract/adapter.js';
import type { SseEvent } from '../../src/contract/http.js';
import { UnexpectedAnswer, UsageError } from '../../src/contract/errors.js';
import { adapterFor } from '../../profiles/registry.js';
import { responsesRequestSchema } from '../contract/responses-schemas.js';
import { testProfile } from '../helpers/profile.js';

const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const request: ChatRequest = {
  messages: [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    },
    { role: 'tool', content: '{"c":21}', tool_call_id: 'call_1' },
  ],
  parameters: { max_tokens: 40, temperature: 0.5 },
  tools: [WEATHER],
  tool_choice: { function: 'get_weather' },
  parallel_tool_calls: false,
  response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' }, strict: true } },
};

async function op(kind: 'openai' | 'azure-openai'): Promise<ChatOperation> {
  return adapterFor(kind).chat!('responses');
}

describe('the Responses request', () => {
  test('openai: /v1/responses with input items, flat tools, text.format and store false', async () => {
    const profile = testProfile({ provider: 'openai', url: 'http://h:1/v1' });
    const spec = (await op('openai')).build(request, { model: 'gpt-4o', stream: true }, profile);
    expect(spec.url).toBe('http://h:1/v1/responses');
    expect(spec.headers.accept).toBe('text/event-stream');
    const body = JSON.parse(spec.body!);
    expect(responsesRequestSchema.safeParse(body).success).toBe(true);
    expect(body).toEqual({
      model: 'gpt-4o',
      input: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"c":21}' },
      ],
      max_output_tokens: 40,
      temperature: 0.5,
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: WEATHER.function.parameters,
          strict: false,
        },
      ],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'w', schema: { type: 'object' }, strict: true } },
      store: false,
      stream: true,
    });
  });

  test('azure-openai: the v1 route, the deployment as model, whatever the endpoint form', async () => {
    for (const url of [
      'https://r.openai.azure.com',
      'https://r.openai.azure.com/openai',
      'https://r.openai.azure.com/openai/v1/',
    ]) {
      const profile = testProfile({ provider: 'azure-openai', url: url.replace(/\/$/, '') });
      const spec = (await op('azure-openai')).build(request, { deployment: 'my-dep', stream: false }, profile);
      expect(spec.url).toBe('https://r.openai.azure.com/openai/v1/responses');
      expect(JSON.parse(spec.body!).model).toBe('my-dep');
    }
  });

  test('max_tokens below 16 is a usage error', async () => {
    const profile = testProfile({ provider: 'openai', url: 'http://h:1' });
    const small = { ...request, parameters: { max_tokens: 8 } };
    await expect(async () => (await op('openai')).build(small, { model: 'm', stream: false }, profile)).rejects.toThrow(
      UsageError,
    );
  });
});

const response = (output: unknown[], extra: Record<string, unknown> = {}) => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1714554000,
  model: 'gpt-4o',
  status: 'completed',
  incomplete_details: null,
  output,
  usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 },
  ...extra,
});
const message = (text: string) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});
const call = {
  id: 'fc_1',
  type: 'function_call',
  call_id: 'call_9',
  name: 'get_weather',
  arguments: '{"city":"Oslo"}',
};

describe('the Responses answer', () => {
  test('text, usage and the envelope in the canonical shape', async () => {
    const result = (await op('openai')).parse(response([message('The Rhine.')]), request);
    expect(result).toEqual({
      provider: 'openai',
      id: 'resp_1',
      model: 'gpt-4o',
      created_at: '2024-05-01T09:00:00.000Z',
      choices: [{ index: 0, message: { role: 'assistant', content: 'The Rhine.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
    });
  });

  test('function_call items are tool calls (finish_reason tool_calls); incomplete is length', async () => {
    const called = (await op('openai')).parse(response([call]), request);
    expect(called.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
    const cut = (await op('openai')).parse(
      response([message('Once')], { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }),
      request,
    );
    expect(cut.choices[0]!.finish_reason).toBe('length');
  });

  test('another shape (a chat.completion) is UnexpectedAnswer', async () => {
    const o = await op('openai');
    expect(() => o.parse({ object: 'chat.completion', choices: [] }, request)).toThrow(UnexpectedAnswer);
    expect(() => o.parse(response([{ type: 'function_call', name: 1 }]), request)).toThrow(UnexpectedAnswer);
  });
});

const event = (type: string, fields: Record<string, unknown>): SseEvent => ({
  event: type,
  data: JSON.stringify({ type, ...fields, sequence_number: 0 }),
});

describe('the Responses stream', () => {
  test('text deltas, a function call in pieces, the finish reason and usage; the envelope on every chunk', async () => {
    const decode = (await op('openai')).decoder(request);
    const steps = [
      event('response.created', { response: response([], { status: 'in_progress', usage: null }) }),
      event('response.in_progress', { response: {} }),
      event('response.output_item.added', { output_index: 0, item: { ...message(''), content: [] } }),
      event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Let me ' }),
      event('response.output_item.added', { output_index: 1, item: { ...call, arguments: '' } }),
      event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 1, delta: '{"city":' }),
      event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 1, delta: '"Oslo"}' }),
      event('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 1, arguments: '{}', name: 'x' }),
      event('response.completed', { response: response([message('Let me '), call]) }),
    ].map(decode);
    const chunks = steps.flatMap((s) => (s.type === 'chunk' ? [s.chunk] : []));
    expect(steps.filter((s) => s.type === 'ignore')).toHaveLength(4);
    for (const c of chunks) expect(c).toMatchObject({ provider: 'openai', id: 'resp_1', model: 'gpt-4o' });
    expect(chunks.map((c) => c.choices[0])).toEqual([
      { index: 0, content: 'Let me ' },
      { index: 0, content: '', tool_calls: [{ index: 0, id: 'call_9', name: 'get_weather', arguments: '' }] },
      { index: 0, content: '', tool_calls: [{ index: 0, arguments: '{"city":' }] },
      { index: 0, content: '', tool_calls: [{ index: 0, arguments: '"Oslo"}' }] },
      { index: 0, content: '', finish_reason: 'tool_calls' },
    ]);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 });
  });

  test('event: error and response.failed are errors; a chat.completion.chunk is not of this protocol', async () => {
    const decode = (await op('openai')).decoder(request);
    expect(decode(event('error', { code: 'server_error', message: 'boom', param: null }))).toMatchObject({
      type: 'error',
      code: 'server_error',
      message: 'boom',
    });
    expect(
      decode(event('response.failed', { response: { error: { code: 'rate_limit_exceeded', message: 'slow down' } } })),
    ).toMatchObject({ type: 'error', code: 'rate_limit_exceeded', message: 'slow down' });
    expect(
      decode({ event: 'message', data: JSON.stringify({ object: 'chat.completion.chunk', choices: [] }) }),
    ).toMatchObject({
      type: 'ignore',
      unexpected: expect.any(String),
    });
  });
});
