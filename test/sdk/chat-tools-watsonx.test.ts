/**
 * IBM's SDK (`@ibm-cloud/watsonx-ai` 1.7.16) as the oracle for tools and structured output on serve's watsonx chat
 * routes: `textChat` / `textChatStream` with `tools` and `toolChoiceOption` or `toolChoice` (never both: the
 * service's 400), the tool result sent back, `responseFormat` json_object, `guidedJSON`, and the deployment route.
 * The answers use the SDK's `TextChatResultMessage.tool_calls`; streamed calls come as OpenAI-shaped deltas
 * (index, id, type and name first, then argument fragments) with the finish reason `tool_calls`.
 */
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import { IamAuthenticator } from '@ibm-cloud/watsonx-ai/authentication';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RunningServer, startServer } from '../../src/emulator/core/index.js';

let server: RunningServer;
let service: WatsonXAI;
beforeAll(async () => {
  server = await startServer({ requireAuth: true });
  service = WatsonXAI.newInstance({
    version: '2024-05-31',
    serviceUrl: server.url,
    authenticator: new IamAuthenticator({ apikey: 'local-apikey', url: server.url }),
  });
});
afterAll(async () => {
  await server.close();
});

const ajv = new Ajv({ strict: false });
const parameters = {
  type: 'object',
  properties: { city: { type: 'string', pattern: '^[A-Z][a-z]+$' }, days: { type: 'integer', minimum: 1, maximum: 3 } },
  required: ['city', 'days'],
};
const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters } }];
const scope = { modelId: 'ibm/granite-3-8b-instruct', projectId: 'p' };

interface ToolDelta {
  index: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}
interface StreamItem {
  data: {
    choices: Array<{ delta?: { content?: string; tool_calls?: ToolDelta[] }; finish_reason?: string | null }>;
    usage?: { total_tokens?: number };
  };
}

describe('@ibm-cloud/watsonx-ai tools against serve', () => {
  test('textChat with toolChoiceOption required: message.tool_calls whose arguments validate', async () => {
    const res = await service.textChat({
      ...scope,
      messages: [{ role: 'user', content: 'Weather?' }],
      tools,
      toolChoiceOption: 'required',
    });
    const choice = res.result.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message!.tool_calls![0]!;
    expect(call.type).toBe('function');
    expect(call.function.name).toBe('get_weather');
    expect(ajv.validate(parameters, JSON.parse(call.function.arguments))).toBe(true);
    expect(res.result.usage!.total_tokens).toBeGreaterThan(0);
  });

  test('textChatStream with toolChoice: the deltas assemble into the same call', async () => {
    const request = {
      ...scope,
      messages: [{ role: 'user' as const, content: 'Go.' }],
      tools,
      toolChoice: { type: 'function', function: { name: 'get_weather' } },
      seed: 5,
    };
    const whole = (await service.textChat(request)).result.choices[0]!.message!.tool_calls![0]!;
    const stream = await service.textChatStream({ ...request, returnObject: true });
    const calls: Array<{ id?: string; name?: string; arguments: string }> = [];
    let finish: string | null | undefined;
    let usage: unknown;
    for await (const item of stream as AsyncIterable<StreamItem>) {
      for (const c of item.data.choices) {
        for (const d of c.delta?.tool_calls ?? []) {
          calls[d.index] ??= { arguments: '' };
          const call = calls[d.index]!;
          if (d.id) call.id = d.id;
          if (d.function?.name) call.name = d.function.name;
          call.arguments += d.function?.arguments ?? '';
        }
        finish = c.finish_reason ?? finish;
      }
      usage = item.data.usage ?? usage;
    }
    expect(calls).toEqual([{ id: whole.id, name: 'get_weather', arguments: whole.function.arguments }]);
    expect(finish).toBe('tool_calls');
    expect(usage).toBeDefined();
  });

  test('the tool result sent back: the answer is text', async () => {
    const res = await service.textChat({
      ...scope,
      messages: [
        { role: 'user', content: 'Use get_weather.' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","days":1}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'snow' },
      ],
      tools,
      maxTokens: 8,
    });
    const message = res.result.choices[0]!.message!;
    expect(message.tool_calls ?? []).toEqual([]);
    expect(message.content).toBeTruthy();
  });

  test('responseFormat json_object and guidedJSON: JSON documents', async () => {
    const object = await service.textChat({
      ...scope,
      messages: [{ role: 'user', content: 'JSON.' }],
      responseFormat: { type: 'json_object' },
    });
    expect(typeof JSON.parse(object.result.choices[0]!.message!.content!)).toBe('object');
    const guided = await service.textChat({
      ...scope,
      messages: [{ role: 'user', content: 'JSON.' }],
      guidedJSON: JSON.stringify(parameters),
    });
    expect(ajv.validate(parameters, JSON.parse(guided.result.choices[0]!.message!.content!))).toBe(true);
  });

  test('deploymentsTextChat with tools: the deployment route answers calls too', async () => {
    const res = await service.deploymentsTextChat({
      idOrName: 'my-chat-bot',
      messages: [{ role: 'user', content: 'call get_weather' }],
      tools,
    } as Parameters<WatsonXAI['deploymentsTextChat']>[0]);
    expect(res.result.choices[0]!.message!.tool_calls![0]!.function.name).toBe('get_weather');
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    [
      'toolChoiceOption and toolChoice together',
      { tools, toolChoiceOption: 'auto', toolChoice: { type: 'function', function: { name: 'get_weather' } } },
      /only one of 'tool_choice_option' or 'tool_choice'/,
    ],
    [
      'a bad tool name',
      { tools: [{ type: 'function', function: { name: 'no spaces' } }] },
      /tools\[0\]\.function\.name/,
    ],
    [
      'toolChoice naming an unknown function',
      { tools, toolChoice: { type: 'function', function: { name: 'nope' } } },
      /'tool_choice\.function\.name' names the function 'nope'/,
    ],
    [
      'json_schema without a schema',
      { responseFormat: { type: 'json_schema', json_schema: { name: 'x' } } },
      /'response_format\.json_schema\.schema' is required/,
    ],
  ])("%s: the service's 400 in its words", async (_name, extra, words) => {
    const error = (await service
      .textChat({ ...scope, messages: [{ role: 'user', content: 'hi' }], ...extra } as Parameters<
        WatsonXAI['textChat']
      >[0])
      .catch((e: unknown) => e)) as { status?: number; message?: string };
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Json document validation error: /);
    expect(error.message).toMatch(words);
  });
});
