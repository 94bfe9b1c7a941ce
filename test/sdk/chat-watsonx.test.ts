/**
 * IBM's SDK as the oracle for serve's watsonx chat routes: `@ibm-cloud/watsonx-ai` 1.7.16 `textChat`,
 * `textChatStream`, `deploymentsTextChat` and `deploymentsTextChatStream`, authenticated through serve's IAM token
 * endpoint (the server requires credentials, as the service does). The requests the SDK makes are checked against
 * the chat contract too.
 */
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import { IamAuthenticator } from '@ibm-cloud/watsonx-ai/authentication';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { chatRequests, expectValidWire } from '../helpers/wire.js';

let server: RunningServer;
let service: WatsonXAI;
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 }, requireAuth: true });
  service = WatsonXAI.newInstance({
    version: '2024-05-31',
    serviceUrl: server.url,
    authenticator: new IamAuthenticator({ apikey: 'local-apikey', url: server.url }),
  });
});
afterAll(async () => {
  // The request a test makes wrong on purpose carries this header, and is left out of the contract check.
  await expectValidWire(server.requests.filter((r) => r.headers['x-test-invalid'] === undefined));
  await server.close();
});

const messages = [
  { role: 'system' as const, content: 'Answer briefly.' },
  { role: 'user' as const, content: 'Name a river.' },
];

interface StreamItem {
  data: {
    choices: Array<{ delta?: { content?: string }; finish_reason?: string | null }>;
    usage?: { completion_tokens?: number };
  };
}

async function collect(
  stream: AsyncIterable<unknown>,
): Promise<{ text: string; finish: string | undefined; usage: unknown }> {
  let text = '';
  let finish: string | undefined;
  let usage: unknown;
  for await (const item of stream as AsyncIterable<StreamItem>) {
    for (const c of item.data.choices) {
      text += c.delta?.content ?? '';
      finish = c.finish_reason ?? finish;
    }
    usage = item.data.usage ?? usage;
  }
  return { text, finish, usage };
}

describe('@ibm-cloud/watsonx-ai against serve', () => {
  test('textChat: a foundation model in a space answers with a message, a finish reason and usage', async () => {
    const res = await service.textChat({
      modelId: 'ibm/granite-3-8b-instruct',
      spaceId: 'local-space',
      messages,
      maxTokens: 12,
      temperature: 0,
    });
    expect(res.status).toBe(200);
    const answer = res.result;
    expect(answer.model_id).toBe('ibm/granite-3-8b-instruct');
    expect(answer.choices[0]!.message!.role).toBe('assistant');
    expect(answer.choices[0]!.message!.content!.length).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(answer.choices[0]!.finish_reason);
    expect(answer.usage!.prompt_tokens).toBeGreaterThan(0);
  });

  test('textChatStream (returnObject): the events add up to the same answer', async () => {
    const whole = (await service.textChat({ modelId: 'm', projectId: 'p', messages, maxTokens: 12, temperature: 0 }))
      .result;
    const streamed = await collect(
      await service.textChatStream({
        modelId: 'm',
        projectId: 'p',
        messages,
        maxTokens: 12,
        temperature: 0,
        returnObject: true,
      }),
    );
    expect(streamed.text).toBe(whole.choices[0]!.message!.content);
    expect(streamed.finish).toBe(whole.choices[0]!.finish_reason);
    expect(streamed.usage).toEqual(whole.usage);
  });

  test('deploymentsTextChat and deploymentsTextChatStream: the deployment route, no model and no scope in the body', async () => {
    const whole = (
      await service.deploymentsTextChat({ idOrName: 'my-chat-bot', messages, maxTokens: 10, temperature: 0 })
    ).result;
    expect(whole.choices[0]!.message!.content!.length).toBeGreaterThan(0);
    const streamed = await collect(
      await service.deploymentsTextChatStream({
        idOrName: 'my-chat-bot',
        messages,
        maxTokens: 10,
        temperature: 0,
        returnObject: true,
      }),
    );
    expect(streamed.text).toBe(whole.choices[0]!.message!.content);
    const paths = chatRequests(server.requests)
      .slice(-2)
      .map((r) => r.path);
    expect(paths).toEqual([
      '/ml/v1/deployments/my-chat-bot/text/chat',
      '/ml/v1/deployments/my-chat-bot/text/chat_stream',
    ]);
  });

  test("a body the service refuses is the SDK's error with watsonx's status and message", async () => {
    const error = (await service
      .textChat({ modelId: 'm', messages, headers: { 'x-test-invalid': 'on purpose' } })
      .catch((e: unknown) => e)) as { status?: number; message?: string };
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/project_id.*space_id/);
  });
});
