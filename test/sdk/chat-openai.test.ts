/**
 * The vendor's SDK as the oracle for serve's chat routes: `openai` 6's `chat.completions.create`, plain and
 * streamed, against the OpenAI-compatible `/v1/chat/completions`, Azure's deployment route (through `AzureOpenAI`)
 * and Aleph Alpha's `/chat/completions` (its documentation points the OpenAI client at the API's base URL), with
 * the server requiring credentials as a real service does. What the SDK parses must be what textgen reads.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { expectValidWire } from '../helpers/wire.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 }, requireAuth: true });
});
/** Requests a test makes wrong on purpose carry this header, and are left out of the contract check. */
const ON_PURPOSE = { 'x-test-invalid': 'on purpose' };
afterAll(async () => {
  await expectValidWire(server.requests.filter((r) => r.headers['x-test-invalid'] === undefined));
  await server.close();
});

const KEY = 'local-apikey';
const messages = [
  { role: 'system' as const, content: 'Answer briefly.' },
  { role: 'user' as const, content: 'Name a river.' },
];

const clients = () => [
  {
    name: 'OpenAI-compatible /v1',
    client: new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 }),
    model: 'llama3',
  },
  {
    name: 'Azure OpenAI',
    client: new AzureOpenAI({
      apiKey: KEY,
      endpoint: server.url,
      apiVersion: '2024-10-21',
      deployment: 'gpt-4o',
      maxRetries: 0,
    }),
    model: 'gpt-4o',
  },
  {
    name: 'Aleph Alpha /chat/completions',
    client: new OpenAI({ apiKey: KEY, baseURL: server.url, maxRetries: 0 }),
    model: 'llama-3.1-8b-instruct',
  },
];

describe.each([0, 1, 2])('openai chat.completions.create against serve (%i)', (i) => {
  test('a whole answer: message, finish reason, usage, logprobs with alternatives', async () => {
    const { client, model } = clients()[i]!;
    const answer = await client.chat.completions.create({
      model,
      messages,
      max_tokens: 12,
      temperature: 0,
      n: 2,
      logprobs: true,
      top_logprobs: 2,
    });
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices).toHaveLength(2);
    const first = answer.choices[0]!;
    expect(first.message.role).toBe('assistant');
    expect(first.message.content!.length).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(first.finish_reason);
    expect(first.logprobs!.content![0]!.top_logprobs).toHaveLength(2);
    expect(answer.usage!.total_tokens).toBe(answer.usage!.prompt_tokens + answer.usage!.completion_tokens);
  });

  test('streamed: the chunks add up to the whole answer, with a finish reason and usage at the end', async () => {
    const { client, model } = clients()[i]!;
    const whole = await client.chat.completions.create({ model, messages, max_tokens: 12, temperature: 0 });
    const stream = await client.chat.completions.create({
      model,
      messages,
      max_tokens: 12,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      // Azure opens its streams with the prompt's content-filter verdict: no choices, an empty object name.
      if (chunk.choices.length === 0 && chunk.object !== 'chat.completion.chunk' && chunk.usage === undefined) continue;
      expect(chunk.object).toBe('chat.completion.chunk');
      for (const c of chunk.choices) {
        text += c.delta.content ?? '';
        finish = c.finish_reason ?? finish;
      }
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(finish).toBe(whole.choices[0]!.finish_reason);
    expect(usage).toEqual(whole.usage);
  });

  test("a wrong key is the SDK's AuthenticationError (401)", async () => {
    const { model } = clients()[i]!;
    const bad = [
      new OpenAI({ apiKey: 'wrong', baseURL: `${server.url}/v1`, maxRetries: 0 }),
      new AzureOpenAI({
        apiKey: 'wrong',
        endpoint: server.url,
        apiVersion: '2024-10-21',
        deployment: 'gpt-4o',
        maxRetries: 0,
      }),
      new OpenAI({ apiKey: 'wrong', baseURL: server.url, maxRetries: 0 }),
    ][i]!;
    await expect(bad.chat.completions.create({ model, messages })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

test("a bad parameter is the SDK's BadRequestError naming the parameter", async () => {
  const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const error = await client.chat.completions
    .create({ model: 'm', messages, temperature: 3 }, { headers: ON_PURPOSE })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('temperature');
});
