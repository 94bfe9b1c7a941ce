/**
 * The vendor's SDK as the oracle for serve's Responses API and Azure's v1 API: `openai` 6's `responses.create`
 * (plain and `stream: true`), `responses.stream`, `responses.retrieve`, `previous_response_id`, input items and
 * errors against `/v1/responses`; `OpenAI` and `AzureOpenAI` with baseURL `…/openai/v1/` against the Azure v1
 * routes (chat, embeddings, models, responses). The server requires credentials, as a real service does. Every
 * answer and event is checked against test/contract/responses-schemas.ts, every request by the wire check.
 */
import OpenAI, { type APIError, AzureOpenAI } from 'openai';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { responseObjectSchema, responsesStreamEventSchema } from '../contract/responses-schemas.js';
import { expectValidWire } from '../helpers/wire.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 }, requireAuth: true });
});
/** Requests a test makes wrong on purpose carry this header, and are left out of the contract check. */
const ON_PURPOSE = { headers: { 'x-test-invalid': 'on purpose' } };
afterAll(async () => {
  await expectValidWire(server.requests.filter((r) => r.headers['x-test-invalid'] === undefined));
  await server.close();
});

const KEY = 'local-apikey';
/** A prompt whose answer at temperature 0 runs past 16 tokens (the smallest max_output_tokens OpenAI takes). */
const LONG = 'Tell me a long story about rivers and mountains.';

const openai = () => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });

function expectValidResponse(response: unknown) {
  const parsed = responseObjectSchema.safeParse(response);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
}

function textOf(response: OpenAI.Responses.Response): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
}

describe('openai responses against serve /v1/responses', () => {
  test('a whole answer: one assistant message, status, usage that adds up, output_text', async () => {
    const response = await openai().responses.create({
      model: 'gpt-4o',
      input: 'Name a river.',
      instructions: 'Answer briefly.',
      temperature: 0,
    });
    expectValidResponse(response);
    expect(response.status).toBe('completed');
    expect(response.incomplete_details).toBeNull();
    expect(response.instructions).toBe('Answer briefly.');
    expect(response.output).toHaveLength(1);
    const item = response.output[0]!;
    expect(item.type).toBe('message');
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.output_text).toBe(textOf(response));
    const usage = response.usage!;
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
  });

  test('max_output_tokens cuts the answer: status incomplete, reason max_output_tokens', async () => {
    const response = await openai().responses.create({
      model: 'gpt-4o',
      input: LONG,
      max_output_tokens: 16,
      temperature: 0,
    });
    expectValidResponse(response);
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.usage!.output_tokens).toBe(16);
  });

  test('stream: true sends the typed events in order, numbered from 0, adding up to the whole answer', async () => {
    const client = openai();
    const whole = await client.responses.create({ model: 'gpt-4o', input: 'Name a river.', temperature: 0 });
    const stream = await client.responses.create({
      model: 'gpt-4o',
      input: 'Name a river.',
      temperature: 0,
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    for (const event of events) {
      const parsed = responsesStreamEventSchema.safeParse(event);
      expect(parsed.success, `${event.type}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    }
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type);
    const deltas = types.filter((t) => t === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThan(1);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(deltas).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    const done = events.find((e) => e.type === 'response.output_text.done');
    expect(done?.type === 'response.output_text.done' && done.text).toBe(text);
    const completed = events.at(-1);
    expect(completed?.type).toBe('response.completed');
    if (completed?.type !== 'response.completed') return;
    expect(textOf(completed.response)).toBe(text);
    expect(text).toBe(whole.output_text);
    expect(completed.response.usage).toEqual(whole.usage);
  });

  test('a streamed answer cut by max_output_tokens ends with response.incomplete', async () => {
    const stream = await openai().responses.create({
      model: 'gpt-4o',
      input: LONG,
      max_output_tokens: 16,
      temperature: 0,
      stream: true,
    });
    let last: OpenAI.Responses.ResponseStreamEvent | undefined;
    for await (const event of stream) last = event;
    expect(last?.type).toBe('response.incomplete');
    if (last?.type === 'response.incomplete')
      expect(last.response.incomplete_details?.reason).toBe('max_output_tokens');
  });

  test('responses.stream: the helper assembles the same answer, and its text deltas', async () => {
    const client = openai();
    const whole = await client.responses.create({ model: 'gpt-4o', input: 'Name a lake.', temperature: 0 });
    const deltas: string[] = [];
    const stream = client.responses.stream({ model: 'gpt-4o', input: 'Name a lake.', temperature: 0 });
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(textOf(final)).toBe(whole.output_text);
    expect(deltas.join('')).toBe(whole.output_text);
  });

  test('previous_response_id continues the kept conversation; retrieve answers the kept response', async () => {
    const client = openai();
    const first = await client.responses.create({ model: 'gpt-4o', input: 'Name a river.', temperature: 0 });
    const next = await client.responses.create({
      model: 'gpt-4o',
      input: 'And another one?',
      previous_response_id: first.id,
      temperature: 0,
    });
    const alone = await client.responses.create({ model: 'gpt-4o', input: 'And another one?', temperature: 0 });
    expect(next.previous_response_id).toBe(first.id);
    // The earlier turns are read: more input tokens, and (the engine writes from the whole conversation) another answer.
    expect(next.usage!.input_tokens).toBeGreaterThan(alone.usage!.input_tokens + first.usage!.output_tokens);
    expect(next.output_text).not.toBe(alone.output_text);
    const kept = await client.responses.retrieve(first.id);
    expectValidResponse(kept);
    expect(kept.id).toBe(first.id);
    expect(textOf(kept)).toBe(first.output_text);
    expect(kept.usage).toEqual(first.usage);
  });

  test('the same conversation as items gives the same answer as previous_response_id', async () => {
    const client = openai();
    const first = await client.responses.create({ model: 'gpt-4o', input: 'Name a river.', temperature: 0 });
    const chained = await client.responses.create({
      model: 'gpt-4o',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'And another one?' }] }],
      previous_response_id: first.id,
      temperature: 0,
    });
    const items = await client.responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: 'Name a river.' },
        { role: 'assistant', content: first.output_text },
        { role: 'user', content: [{ type: 'input_text', text: 'And another one?' }] },
      ],
      temperature: 0,
    });
    expect(items.output_text).toBe(chained.output_text);
    // An item_reference to the first answer's message reads the same conversation again.
    const referenced = await client.responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: 'Name a river.' },
        { type: 'item_reference', id: first.output[0]!.id! },
        { role: 'user', content: 'And another one?' },
      ],
      temperature: 0,
    });
    expect(referenced.output_text).toBe(chained.output_text);
  });

  test('function_call and function_call_output items are part of the conversation', async () => {
    const client = openai();
    const input: OpenAI.Responses.ResponseInput = [
      { role: 'user', content: 'What is the weather in Paris?' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"temperature_c":21}' },
    ];
    const withResult = await client.responses.create({ model: 'gpt-4o', input, temperature: 0 });
    const without = await client.responses.create({ model: 'gpt-4o', input: [input[0]!], temperature: 0 });
    expectValidResponse(withResult);
    expect(withResult.status).toBe('completed');
    expect(withResult.usage!.input_tokens).toBeGreaterThan(without.usage!.input_tokens);
  });

  test('responses.delete forgets a kept response: retrieve is then a 404', async () => {
    const client = openai();
    const kept = await client.responses.create({ model: 'gpt-4o', input: 'Hi', temperature: 0 });
    await client.responses.delete(kept.id);
    await expect(client.responses.retrieve(kept.id, {}, ON_PURPOSE)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.responses.delete(kept.id, ON_PURPOSE)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  test('store: false keeps nothing: retrieve is 404 and previous_response_id is 400', async () => {
    const client = openai();
    const unkept = await client.responses.create({ model: 'gpt-4o', input: 'Hi', store: false, temperature: 0 });
    // `store` is in OpenAI's answer, though not in the SDK's Response type.
    expect((unkept as unknown as { store: boolean }).store).toBe(false);
    await expect(client.responses.retrieve(unkept.id, {}, ON_PURPOSE)).rejects.toMatchObject({ status: 404 });
    await expect(
      client.responses.create({ model: 'gpt-4o', input: 'Hi', previous_response_id: unkept.id }, ON_PURPOSE),
    ).rejects.toMatchObject({ status: 400, code: 'previous_response_not_found', param: 'previous_response_id' });
  });

  test.each([
    [
      { model: 'gpt-4o', input: 'Hi', max_tokens: 20 },
      "Unknown parameter: 'max_tokens'.",
      'unknown_parameter',
      'max_tokens',
    ],
    [{ input: 'Hi' }, "Missing required parameter: 'model'.", 'missing_required_parameter', 'model'],
    [
      { model: 'gpt-4o', input: 'Hi', temperature: 3 },
      "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 3 instead.",
      'decimal_above_max_value',
      'temperature',
    ],
    [
      { model: 'gpt-4o', input: 'Hi', max_output_tokens: 5 },
      "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 5 instead.",
      'integer_below_min_value',
      'max_output_tokens',
    ],
    [
      { model: 'gpt-4o', input: 'Hi', previous_response_id: 'resp_unknown' },
      "Previous response with id 'resp_unknown' not found.",
      'previous_response_not_found',
      'previous_response_id',
    ],
    [
      { model: 'gpt-4o', input: 'Hi', tools: [{ type: 'web_search' }] },
      "Invalid value: 'web_search'. This server supports only function tools: 'function'.",
      'invalid_value',
      'tools[0].type',
    ],
  ])('%j is a 400 in OpenAI words', async (body, message, code, param) => {
    const error = await openai()
      .responses.create(body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming, ON_PURPOSE)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code, param, type: 'invalid_request_error' });
    expect((error as APIError).error).toMatchObject({ message });
  });

  test('retrieve of an unknown id is a 404 NotFoundError; a wrong key is a 401', async () => {
    const error = await openai()
      .responses.retrieve('resp_nope', {}, ON_PURPOSE)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as APIError).error).toMatchObject({ message: "Response with id 'resp_nope' not found." });
    const stranger = new OpenAI({ apiKey: 'wrong', baseURL: `${server.url}/v1`, maxRetries: 0 });
    await expect(stranger.responses.create({ model: 'gpt-4o', input: 'Hi' }, ON_PURPOSE)).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
  });
});

const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
  strict: true,
};
const PERSON_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['name', 'age'],
  additionalProperties: false,
};
const ajv = new Ajv({ strict: false });

describe('tools and text.format on /v1/responses', () => {
  test('tool_choice required: one function_call item whose arguments fit the parameters schema', async () => {
    const response = await openai().responses.create({
      model: 'gpt-4o',
      input: 'What is the weather in Paris?',
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
    });
    expectValidResponse(response);
    expect(response.status).toBe('completed');
    expect(response.output).toHaveLength(1);
    const call = response.output[0]!;
    expect(call.type).toBe('function_call');
    if (call.type !== 'function_call') return;
    expect(call.name).toBe('get_weather');
    expect(call.call_id).toMatch(/^call_/);
    expect(ajv.validate(WEATHER_TOOL.parameters, JSON.parse(call.arguments)), ajv.errorsText()).toBe(true);
    expect(response.tools).toEqual([WEATHER_TOOL]);
  });

  test('streamed call: argument deltas add up to .done and to the completed item', async () => {
    const stream = await openai().responses.create({
      model: 'gpt-4o',
      input: 'Call get_weather for Paris.',
      tools: [WEATHER_TOOL],
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    for (const event of events) expect(responsesStreamEventSchema.safeParse(event).success, event.type).toBe(true);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added']);
    expect(types.slice(-3)).toEqual([
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const args = events.flatMap((e) => (e.type === 'response.function_call_arguments.delta' ? [e.delta] : [])).join('');
    const done = events.find((e) => e.type === 'response.function_call_arguments.done');
    expect(done?.type === 'response.function_call_arguments.done' && done.arguments).toBe(args);
    const completed = events.at(-1)!;
    if (completed.type !== 'response.completed') throw new Error('no response.completed');
    const item = completed.response.output[0]!;
    expect(item.type === 'function_call' && item.arguments).toBe(args);
  });

  test('a tool loop: the function_call_output through previous_response_id is answered in words', async () => {
    const client = openai();
    const first = await client.responses.create({
      model: 'gpt-4o',
      input: 'Use get_weather for Paris.',
      tools: [WEATHER_TOOL],
    });
    const call = first.output[0]!;
    if (call.type !== 'function_call') throw new Error('expected a function call');
    const second = await client.responses.create({
      model: 'gpt-4o',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temperature":21}' }],
      tools: [WEATHER_TOOL],
    });
    expect(second.output[0]!.type).toBe('message');
    expect(second.output_text.length).toBeGreaterThan(0);
  });

  test('text.format json_schema: the output text is JSON the schema accepts, plain and streamed alike', async () => {
    const client = openai();
    const request = {
      model: 'gpt-4o',
      input: 'Invent a person.',
      text: { format: { type: 'json_schema' as const, name: 'person', schema: PERSON_SCHEMA, strict: true } },
    };
    const response = await client.responses.create(request);
    expectValidResponse(response);
    expect(ajv.validate(PERSON_SCHEMA, JSON.parse(response.output_text)), ajv.errorsText()).toBe(true);
    expect(response.text?.format).toEqual(request.text.format);
    const final = await client.responses.stream(request).finalResponse();
    expect(textOf(final)).toBe(response.output_text);
    const object = await client.responses.create({ ...request, text: { format: { type: 'json_object' } } });
    expect(typeof JSON.parse(object.output_text)).toBe('object');
  });
});

describe('Azure OpenAI v1 API (/openai/v1/) against serve', () => {
  const v1 = () => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/openai/v1/`, maxRetries: 0 });
  const azure = () =>
    new AzureOpenAI({ apiKey: KEY, baseURL: `${server.url}/openai/v1/`, apiVersion: 'preview', maxRetries: 0 });

  test('OpenAI with baseURL …/openai/v1/: chat completions with the deployment as model, plain and streamed', async () => {
    const client = v1();
    const messages = [{ role: 'user' as const, content: 'Name a river.' }];
    const whole = await client.chat.completions.create({ model: 'my-gpt-4o', messages, temperature: 0 });
    expect(whole.object).toBe('chat.completion');
    expect(whole.model).toBe('my-gpt-4o');
    expect(whole.choices[0]!.message.content!.length).toBeGreaterThan(0);
    const stream = await client.chat.completions.create({ model: 'my-gpt-4o', messages, temperature: 0, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(whole.choices[0]!.message.content);
  });

  test('embeddings and the model list on the v1 routes', async () => {
    const client = v1();
    const embedded = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(embedded.data).toHaveLength(2);
    expect(embedded.data[0]!.embedding).toHaveLength(1536);
    const models = [];
    for await (const m of client.models.list()) models.push(m.id);
    expect(models).toContain('text-embedding-3-small');
  });

  test('AzureOpenAI (api-key header, api-version=preview): responses.create, stream and retrieve', async () => {
    const client = azure();
    const response = await client.responses.create({ model: 'my-gpt-4o', input: 'Name a river.', temperature: 0 });
    expectValidResponse(response);
    expect(response.model).toBe('my-gpt-4o');
    const last = server.requests.at(-1)!;
    expect(last.path).toBe('/openai/v1/responses');
    expect(last.query['api-version']).toBe('preview');
    expect(last.headers['api-key']).toBe(KEY);
    const final = await client.responses
      .stream({ model: 'my-gpt-4o', input: 'Name a river.', temperature: 0 })
      .finalResponse();
    expect(textOf(final)).toBe(response.output_text);
    expect((await client.responses.retrieve(response.id)).id).toBe(response.id);
  });

  test('a dated api-version is Azure 400; a wrong key Azure 401; a missing model a 400', async () => {
    const dated = await fetch(`${server.url}/openai/v1/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'api-key': KEY, 'content-type': 'application/json', ...ON_PURPOSE.headers },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(dated.status).toBe(400);
    expect(((await dated.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'BadRequest',
      message: expect.stringContaining('API version not supported'),
    });
    const stranger = new OpenAI({ apiKey: 'wrong', baseURL: `${server.url}/openai/v1/`, maxRetries: 0 });
    const denied = await stranger.models.list(ON_PURPOSE).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.AuthenticationError);
    const noModel = await fetch(`${server.url}/openai/v1/embeddings`, {
      method: 'POST',
      headers: { 'api-key': KEY, 'content-type': 'application/json', ...ON_PURPOSE.headers },
      body: JSON.stringify({ input: 'Hi' }),
    });
    expect(noModel.status).toBe(400);
  });
});
