/**
 * The Vercel AI SDK (`ai` 6) as an oracle for serve's Responses API, through each provider's default: `@ai-sdk/openai`
 * 3's `createOpenAI({baseURL})(model)` calls `POST /v1/responses`, and `@ai-sdk/azure` 3's `createAzure(…)(deployment)`
 * calls `/openai/v1/responses` (with `baseURL`: that URL as given; with `resourceName`:
 * `https://{resource}.openai.azure.com/openai/v1/responses?api-version=v1`, here sent to serve by a fetch that keeps
 * the path and query). `generateText`, `streamText`, `generateObject`, and a tool loop with `stopWhen`.
 */
import { createAzure } from '@ai-sdk/azure';
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { expectValidWire } from '../helpers/wire.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 }, requireAuth: true });
});
afterAll(async () => {
  await expectValidWire(server.requests);
  await server.close();
});

const KEY = 'local-apikey';

/** The models under test: each provider's default language model, with the path it must call. */
const models = () => [
  {
    name: '@ai-sdk/openai default',
    model: createOpenAI({ apiKey: KEY, baseURL: `${server.url}/v1` })('gpt-4o'),
    path: '/v1/responses',
  },
  {
    name: '@ai-sdk/azure default (baseURL …/openai/v1)',
    model: createAzure({ apiKey: KEY, baseURL: `${server.url}/openai/v1` })('my-gpt-4o'),
    path: '/openai/v1/responses',
  },
  {
    name: '@ai-sdk/azure default (resourceName)',
    model: createAzure({
      apiKey: KEY,
      resourceName: 'myresource',
      // The SDK builds https://myresource.openai.azure.com/…: the same path and query go to serve instead.
      fetch: (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        expect(url.origin).toBe('https://myresource.openai.azure.com');
        return fetch(`${server.url}${url.pathname}${url.search}`, init);
      },
    })('my-gpt-4o'),
    path: '/openai/v1/responses',
  },
];

const weather = tool({
  description: 'The weather in a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  }),
  execute: async ({ city }) => ({ city, temperature_c: 21 }),
});

describe.each([0, 1, 2])('the AI SDK against serve (%i)', (i) => {
  test('generateText: text, finish reason, usage, from the Responses route', async () => {
    const { model, path } = models()[i]!;
    const result = await generateText({ model, prompt: 'Name a river.', temperature: 0 });
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.finishReason).toBe('stop');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(server.requests.at(-1)!.path).toBe(path);
    if (path.startsWith('/openai/v1/')) expect(server.requests.at(-1)!.headers['api-key']).toBe(KEY);
  });

  test('streamText: the stream adds up to the answer generateText gets', async () => {
    const { model } = models()[i]!;
    const whole = await generateText({ model, prompt: 'Name a lake.', temperature: 0 });
    const result = streamText({ model, prompt: 'Name a lake.', temperature: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe(whole.text);
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBe(whole.usage.outputTokens);
  });

  test('maxOutputTokens cuts the answer: finish reason length', async () => {
    const { model } = models()[i]!;
    const result = await generateText({
      model,
      prompt: 'Tell me a long story about rivers and mountains.',
      maxOutputTokens: 16,
      temperature: 0,
    });
    expect(result.finishReason).toBe('length');
  });

  test('generateObject: an object the schema accepts (text.format json_schema)', async () => {
    const { model } = models()[i]!;
    const { object } = await generateObject({
      model,
      prompt: 'Invent a person.',
      schema: jsonSchema<{ name: string; age: number }>({
        type: 'object',
        properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0, maximum: 120 } },
        required: ['name', 'age'],
        additionalProperties: false,
      }),
    });
    expect(typeof object.name).toBe('string');
    expect(Number.isInteger(object.age)).toBe(true);
  });

  test('a tool: the call, its execution, and the answer after the tool result (stopWhen)', async () => {
    const { model } = models()[i]!;
    const result = await generateText({
      model,
      prompt: 'Use weather for Paris.',
      tools: { weather },
      stopWhen: stepCountIs(3),
      // Greedy: with the service's default temperature the answer after the tool result is sampled, and now and
      // then runs past the default token limit (finish reason "length").
      temperature: 0,
    });
    expect(result.steps.length).toBe(2);
    const first = result.steps[0]!;
    expect(first.finishReason).toBe('tool-calls');
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0]!.toolName).toBe('weather');
    expect(typeof (first.toolCalls[0]!.input as { city: unknown }).city).toBe('string');
    expect(first.toolResults[0]!.output).toMatchObject({ temperature_c: 21 });
    expect(result.finishReason).toBe('stop');
    expect(result.text.length).toBeGreaterThan(0);
  });

  test('a streamed tool call: toolCallStreaming parts assemble into the call', async () => {
    const { model } = models()[i]!;
    const result = streamText({ model, prompt: 'Use weather for Oslo.', tools: { weather }, toolChoice: 'required' });
    const calls = [];
    for await (const part of result.fullStream) if (part.type === 'tool-call') calls.push(part);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.toolName).toBe('weather');
    expect(await result.finishReason).toBe('tool-calls');
  });
});
