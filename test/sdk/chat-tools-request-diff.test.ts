/**
 * The vendors' SDKs as the oracle for the request shape of tools and structured output: for the same logical call,
 * what `openai` (chat.completions.create, OpenAI and AzureOpenAI) and IBM's `@ibm-cloud/watsonx-ai` (textChat,
 * deploymentsTextChat) send, and what `textgen chat` sends, each captured by a scripted server of its own
 * (test/helpers/chat-fake.ts) that answers both alike. Path and body must agree, apart from the deliberate
 * differences listed with each case (the rest of the request — headers, the version date — is held to the SDKs by
 * test/sdk/openai-request-diff.test.ts and watsonx-request-diff.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import { NoAuthAuthenticator } from '@ibm-cloud/watsonx-ai/authentication';
import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { answer, type FakeReply, type FakeRequest, type Kind, useChatFakes } from '../helpers/chat-fake.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

const fake = useChatFakes();
const home = makeHome();
afterAll(() => home.cleanup());

const KEY = 'tools-diff-key';
const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const CALL = {
  id: 'call_1',
  type: 'function' as const,
  function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' },
};
const HISTORY = [
  { role: 'user' as const, content: 'Weather in Lisbon?' },
  { role: 'assistant' as const, tool_calls: [CALL] },
  { role: 'tool' as const, tool_call_id: 'call_1', content: 'sunny' },
];

interface Seen {
  path: string;
  body: Record<string, unknown>;
}

const seen = (r: FakeRequest): Seen => ({ path: r.path, body: r.json as Record<string, unknown> });

/** The keys whose values differ between the two bodies. */
function differences(a: Seen, b: Seen): string[] {
  const out: string[] = [];
  if (a.path !== b.path) out.push('path');
  for (const k of new Set([...Object.keys(a.body), ...Object.keys(b.body)]))
    if (JSON.stringify(a.body[k]) !== JSON.stringify(b.body[k])) out.push(`body ${k}`);
  return out.sort();
}

async function profileFor(kind: Kind, url: string): Promise<void> {
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  const line =
    kind === 'watsonx'
      ? `  p: { provider: watsonx, url: "${url}", space_id: sp-1 }`
      : kind === 'azure-openai'
        ? `  p: { provider: azure-openai, url: "${url}", chat_api_version: "2024-10-21", auth: { type: api-key, key_env: K } }`
        : `  p: { provider: openai, url: "${url}/v1", auth: { type: bearer, token_env: K } }`;
  writeFileSync(join(home.dir, 'config', 'textgen', 'config.yaml'), `profiles:\n${line}\n`);
}

async function capture(kind: Kind, reply: FakeReply, sdkCall: (url: string) => Promise<unknown>, args: string[]) {
  const sdkServer = await fake([reply]);
  await sdkCall(sdkServer.url);
  const cliServer = await fake([reply]);
  await profileFor(kind, cliServer.url);
  const r = await runInProcess(['--profile', 'p', '--retries', '0', 'chat', '--no-stream', ...args], {
    env: { ...home.env, K: KEY },
    cwd: home.dir,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(sdkServer.requests).toHaveLength(1);
  expect(cliServer.requests).toHaveLength(1);
  return { sdk: seen(sdkServer.requests[0]!), textgen: seen(cliServer.requests[0]!) };
}

const openai = (url: string) => new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
const azure = (url: string) => new AzureOpenAI({ apiKey: KEY, endpoint: url, apiVersion: '2024-10-21', maxRetries: 0 });
const watsonx = (url: string) =>
  WatsonXAI.newInstance({ serviceUrl: url, spaceId: 'sp-1', authenticator: new NoAuthAuthenticator() });

describe("tools: textgen's request is the SDK's", () => {
  it('openai chat.completions.create with tools, a named tool_choice and parallel_tool_calls: false', async () => {
    const { sdk, textgen } = await capture(
      'openai',
      answer('openai', null, [{ id: 'call_1', name: 'get_weather', arguments: '{}' }]),
      (url) =>
        openai(url).chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'Weather?' }],
          tools: TOOLS,
          tool_choice: { type: 'function', function: { name: 'get_weather' } },
          parallel_tool_calls: false,
        }),
      [
        '-m',
        'gpt-4o-mini',
        '--tools',
        JSON.stringify(TOOLS),
        '--tool-choice',
        'get_weather',
        '--no-parallel-tool-calls',
        'Weather?',
      ],
    );
    expect(differences(sdk, textgen)).toEqual([]);
  });

  it('AzureOpenAI with a conversation of tool calls and results: only the body model differs', async () => {
    const { sdk, textgen } = await capture(
      'azure-openai',
      answer('azure-openai', 'It is sunny.'),
      (url) =>
        azure(url).chat.completions.create({ model: 'gpt-4o', messages: HISTORY, tools: TOOLS, tool_choice: 'auto' }),
      [
        '-m',
        'gpt-4o',
        '--tools',
        JSON.stringify(TOOLS),
        '--tool-choice',
        'auto',
        '--messages',
        JSON.stringify(HISTORY),
      ],
    );
    // Deliberate: the SDK sends the deployment as `model` too; Azure reads the deployment in the path.
    expect(differences(sdk, textgen)).toEqual(['body model']);
  });

  it('openai response_format json_schema {name, schema, strict}', async () => {
    const { sdk, textgen } = await capture(
      'openai',
      answer('openai', '{"city": "Lisbon"}'),
      (url) =>
        openai(url).chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'A city?' }],
          response_format: { type: 'json_schema', json_schema: { name: 'city', schema: SCHEMA, strict: true } },
        }),
      ['-m', 'gpt-4o-mini', '--json-schema', JSON.stringify({ name: 'city', schema: SCHEMA, strict: true }), 'A city?'],
    );
    expect(differences(sdk, textgen)).toEqual([]);
  });

  it('watsonx textChat with tools and toolChoiceOption', async () => {
    const { sdk, textgen } = await capture(
      'watsonx',
      answer('watsonx', null, [{ id: 'call_1', name: 'get_weather', arguments: '{}' }]),
      (url) =>
        watsonx(url).textChat({
          modelId: 'ibm/granite-3-8b-instruct',
          messages: [{ role: 'user', content: 'Weather?' }],
          tools: TOOLS,
          toolChoiceOption: 'required',
        }),
      ['-m', 'ibm/granite-3-8b-instruct', '--tools', JSON.stringify(TOOLS), '--tool-choice', 'required', 'Weather?'],
    );
    expect(differences(sdk, textgen)).toEqual([]);
  });

  it('watsonx textChat with a named toolChoice and the tool results of a conversation', async () => {
    const { sdk, textgen } = await capture(
      'watsonx',
      answer('watsonx', 'Sunny.'),
      (url) =>
        watsonx(url).textChat({
          modelId: 'ibm/granite-3-8b-instruct',
          messages: HISTORY,
          tools: TOOLS,
          toolChoice: { type: 'function', function: { name: 'get_weather' } },
        }),
      [
        '-m',
        'ibm/granite-3-8b-instruct',
        '--tools',
        JSON.stringify(TOOLS),
        '--tool-choice',
        'get_weather',
        '--messages',
        JSON.stringify(HISTORY),
      ],
    );
    expect(differences(sdk, textgen)).toEqual([]);
  });

  it('watsonx deploymentsTextChat with tools', async () => {
    const { sdk, textgen } = await capture(
      'watsonx',
      answer('watsonx', 'ok'),
      (url) =>
        watsonx(url).deploymentsTextChat({
          idOrName: 'dep-1',
          messages: [{ role: 'user', content: 'Weather?' }],
          tools: TOOLS,
          toolChoiceOption: 'auto',
        }),
      ['--id-or-name', 'dep-1', '--tools', JSON.stringify(TOOLS), '--tool-choice', 'auto', 'Weather?'],
    );
    expect(differences(sdk, textgen)).toEqual([]);
  });

  it('watsonx textChat with responseFormat json_object', async () => {
    const { sdk, textgen } = await capture(
      'watsonx',
      answer('watsonx', '{"a": 1}'),
      (url) =>
        watsonx(url).textChat({
          modelId: 'ibm/granite-3-8b-instruct',
          messages: [{ role: 'user', content: 'JSON?' }],
          responseFormat: { type: 'json_object' },
        }),
      ['-m', 'ibm/granite-3-8b-instruct', '--response-format', 'json_object', 'JSON?'],
    );
    expect(differences(sdk, textgen)).toEqual([]);
  });
});
