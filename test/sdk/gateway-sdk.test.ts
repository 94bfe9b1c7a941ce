/**
 * `textgen serve --upstream` with the vendors' SDKs in front and a fake upstream behind (serve's emulator, started
 * in-process with a request log and its own credentials): IBM's SDK → a gateway whose upstream is an
 * OpenAI-compatible server, the `openai` SDK → a gateway whose upstream is watsonx (through its IAM exchange), and
 * textgen's own Aleph Alpha and Open Inference clients through either; plain and streamed. Faults queued on the
 * upstream (429 with Retry-After, 5xx, a cut stream, silence) arrive in the front dialect, and the front's
 * credentials never reach the upstream (its request log is searched for them). docs/gateway.md.
 */
import OpenAI from 'openai';
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import { BearerTokenAuthenticator } from '@ibm-cloud/watsonx-ai/authentication';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { type Gateway, startGateway, stopGateways, upstreamProfileLines } from '../helpers/upstream-gateway.js';

const UPSTREAM_KEY = 'upstream-key-7f3a';
const FRONT_TOKEN = 'front-secret-91c2';
const home = makeHome();
let upstream: RunningServer;
let config: string;

/** `textgen serve --upstream …` with this file's config and the upstream key in its environment. */
const gateway = (args: string[]): Promise<Gateway> => startGateway(config, args, { ...home.env, UPSTREAM_KEY });

beforeAll(async () => {
  upstream = await startServer({ requestLog: { max: 10_000 }, requireAuth: true, apiKeys: [UPSTREAM_KEY] });
  config = join(home.dir, 'gateway.yaml');
  writeFileSync(
    config,
    [
      ...upstreamProfileLines(upstream.url),
      '  up-wx-quick:',
      '    provider: watsonx',
      `    url: ${upstream.url}`,
      '    project_id: up-project',
      '    timeout: 500',
      `    auth: { type: iam, apikey_env: UPSTREAM_KEY, iam_url: ${upstream.url}/identity/token }`,
      '    defaults: { model: ibm/granite-3-8b-instruct }',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
});

afterEach(() => {
  upstream.faults.length = 0;
});

afterAll(async () => {
  stopGateways();
  await upstream.close();
  home.cleanup();
});

/** The front's credential appears nowhere in what the upstream received (headers or bodies). */
function expectNoFrontToken(): void {
  const seen = JSON.stringify(upstream.requests);
  expect(seen).not.toContain(FRONT_TOKEN);
  expect(seen).not.toContain('local-apikey');
}

async function collectChat(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = '';
  let finish: string | null = null;
  let events = 0;
  for await (const chunk of stream) {
    events++;
    for (const c of chunk.choices) {
      text += c.delta?.content ?? '';
      finish = c.finish_reason ?? finish;
    }
  }
  return { text, finish, events };
}

describe("IBM's watsonx.ai SDK → serve --upstream (an OpenAI-compatible upstream)", () => {
  let gw: Gateway;
  let wx: WatsonXAI;
  beforeAll(async () => {
    gw = await gateway(['--upstream', 'up-openai']);
    wx = WatsonXAI.newInstance({
      serviceUrl: gw.url,
      projectId: 'front-project',
      authenticator: new BearerTokenAuthenticator({ bearerToken: FRONT_TOKEN }),
    });
  });

  it('says at start which front protocol goes to which upstream', () => {
    for (const front of ['watsonx', 'openai', 'aleph-alpha', 'open-inference'])
      expect(gw.stderr()).toContain(`textgen serve: ${front} → upstream up-openai (openai at ${upstream.url}/v1`);
  });

  it('generateText and generateTextStream: the upstream answers /v1/completions, with its own key', async () => {
    upstream.requests.length = 0;
    const parameters = { decoding_method: 'greedy', max_new_tokens: 8 } as const;
    const whole = await wx.generateText({
      input: 'Write about rivers.',
      modelId: 'ibm/granite-13b-instruct-v2',
      parameters,
    });
    const result = whole.result.results[0]!;
    expect(result.generated_text.length).toBeGreaterThan(0);
    expect(result.stop_reason).toBe('max_tokens');
    expect(result.generated_token_count).toBe(8);
    const sent = upstream.requests.find((r) => r.path === '/v1/completions')!;
    expect(sent.json).toMatchObject({
      model: 'gpt-4o-mini',
      prompt: 'Write about rivers.',
      max_tokens: 8,
      temperature: 0,
    });
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);

    const stream = await wx.generateTextStream({
      input: 'Write about rivers.',
      modelId: 'ibm/granite-13b-instruct-v2',
      parameters,
      returnObject: true,
    });
    const events = [];
    for await (const e of stream) events.push(e);
    const text = events.map((e) => e.data.results[0]!.generated_text).join('');
    // One upstream event, one front event: the greedy text of the same upstream is the same text.
    expect(text).toBe(result.generated_text);
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.at(-1)!.data.results[0]!.stop_reason).toBe('max_tokens');
    expectNoFrontToken();
  });

  it('textChat and textChatStream: the upstream answers /v1/chat/completions', async () => {
    upstream.requests.length = 0;
    const messages = [
      { role: 'system' as const, content: 'Answer briefly.' },
      { role: 'user' as const, content: 'Name a river.' },
    ];
    const whole = (await wx.textChat({ modelId: 'ibm/granite-3-8b-instruct', messages, maxTokens: 10, temperature: 0 }))
      .result;
    const answer = whole.choices[0]!.message!.content!;
    expect(answer.length).toBeGreaterThan(0);
    expect(whole.choices[0]!.finish_reason).toBe('length');
    const sent = upstream.requests.find((r) => r.path === '/v1/chat/completions')!;
    expect(sent.json).toMatchObject({ model: 'gpt-4o-mini', messages, max_tokens: 10, temperature: 0, stream: true });

    const stream = await wx.textChatStream({
      modelId: 'ibm/granite-3-8b-instruct',
      messages,
      maxTokens: 10,
      temperature: 0,
      returnObject: true,
    });
    let text = '';
    let finish: string | undefined;
    for await (const item of stream as AsyncIterable<{
      data: { choices: Array<{ delta?: { content?: string }; finish_reason?: string | null }> };
    }>) {
      for (const c of item.data.choices) {
        text += c.delta?.content ?? '';
        finish = c.finish_reason ?? finish;
      }
    }
    expect(text).toBe(answer);
    expect(finish).toBe('length');
    expectNoFrontToken();
  });

  it('an upstream 429 with Retry-After is a watsonx 429 with the same Retry-After', async () => {
    upstream.faults.push({ kind: 'status', status: 429, retryAfter: '7' });
    const error = (await wx
      .generateText({ input: 'x', modelId: 'ibm/granite-13b-instruct-v2', parameters: { max_new_tokens: 3 } })
      .catch((e: unknown) => e)) as { status?: number; headers?: Record<string, string>; body?: string };
    expect(error.status).toBe(429);
    expect(error.headers?.['retry-after']).toBe('7');
    const body = JSON.parse(error.body!) as { errors: Array<{ message: string }>; status_code: number };
    expect(body.status_code).toBe(429);
    expect(body.errors[0]!.message).toMatch(/upstream up-openai answered 429/);
  });

  it('a stream the upstream cuts ends in the watsonx error event', async () => {
    upstream.faults.push({ kind: 'drop', afterEvents: 2 });
    const res = await fetch(`${gw.url}/ml/v1/text/generation_stream?version=2024-05-01`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${FRONT_TOKEN}` },
      body: JSON.stringify({
        model_id: 'ibm/granite-13b-instruct-v2',
        input: 'x',
        project_id: 'p',
        parameters: { max_new_tokens: 20 },
      }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/event: message\ndata: .*"generated_text"/);
    expect(text).toMatch(/event: error\ndata: \{"errors":\[\{"code":"internal_server_error"/);
  });
});

describe('the openai SDK → serve --upstream (a watsonx upstream, through its IAM exchange)', () => {
  let gw: Gateway;
  let openai: OpenAI;
  beforeAll(async () => {
    gw = await gateway(['--upstream', 'openai=up-wx', '--upstream', 'watsonx=up-wx-quick']);
    openai = new OpenAI({ apiKey: FRONT_TOKEN, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  });

  it('names only the protocols it was told to forward', () => {
    expect(gw.stderr()).toContain('textgen serve: openai → upstream up-wx (watsonx at');
    expect(gw.stderr()).toContain('textgen serve: watsonx → upstream up-wx-quick (watsonx at');
    expect(gw.stderr()).not.toContain('aleph-alpha → upstream');
  });

  it('chat.completions.create, plain and streamed: watsonx /ml/v1/text/chat answers with the profile token', async () => {
    upstream.requests.length = 0;
    const messages = [{ role: 'user' as const, content: 'Name a river.' }];
    const whole = await openai.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 9, temperature: 0 });
    const answer = whole.choices[0]!.message.content!;
    expect(answer.length).toBeGreaterThan(0);
    expect(whole.choices[0]!.finish_reason).toBe('length');
    expect(whole.usage?.completion_tokens).toBe(9);
    const exchange = upstream.requests.find((r) => r.path === '/identity/token')!;
    expect(exchange.body).toContain(`apikey=${UPSTREAM_KEY}`);
    const sent = upstream.requests.find((r) => r.path === '/ml/v1/text/chat_stream')!;
    expect(sent.json).toMatchObject({ model_id: 'ibm/granite-3-8b-instruct', project_id: 'up-project', messages });
    expect(sent.headers.authorization).toMatch(/^Bearer /);

    const streamed = await collectChat(
      await openai.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 9, temperature: 0, stream: true }),
    );
    expect(streamed.text).toBe(answer);
    expect(streamed.finish).toBe('length');
    expect(streamed.events).toBeGreaterThanOrEqual(9);
    expectNoFrontToken();
  });

  it('tools: the upstream decides the call, the SDK reads it as an OpenAI tool call', async () => {
    upstream.requests.length = 0;
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const res = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Use get_weather for Paris.' }],
      tools,
    });
    const call = res.choices[0]!.message.tool_calls![0]!;
    if (call.type !== 'function') throw new Error(`a ${call.type} tool call`);
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toHaveProperty('city');
    const sent = upstream.requests.find((r) => r.path === '/ml/v1/text/chat')!;
    expect((sent.json as { tools: unknown[] }).tools).toHaveLength(1);
  });

  it('completions: /v1/completions through watsonx text generation, plain and streamed', async () => {
    const whole = await openai.completions.create({
      model: 'gpt-3.5-turbo-instruct',
      prompt: 'Rivers',
      max_tokens: 6,
      temperature: 0,
    });
    expect(whole.choices[0]!.text.length).toBeGreaterThan(0);
    expect(whole.usage?.completion_tokens).toBe(6);
    let text = '';
    for await (const chunk of await openai.completions.create({
      model: 'gpt-3.5-turbo-instruct',
      prompt: 'Rivers',
      max_tokens: 6,
      temperature: 0,
      stream: true,
    }))
      text += chunk.choices[0]?.text ?? '';
    expect(text).toBe(whole.choices[0]!.text);
  });

  it("an upstream 429 and 503 arrive as the SDK's RateLimitError (Retry-After kept) and InternalServerError", async () => {
    upstream.faults.push({ kind: 'status', status: 429, retryAfter: '3', path: '/ml/v1/text/chat' });
    const limited = (await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(limited.message).toMatch(/upstream up-wx answered 429/);

    upstream.faults.push({ kind: 'status', status: 503, path: '/ml/v1/text/chat' });
    const failed = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
    expect((failed as { status: number }).status).toBe(503);
  });

  it('a cut upstream stream: the SDK stream throws the OpenAI error event, after the text that came', async () => {
    upstream.faults.push({ kind: 'drop', afterEvents: 3, path: '/ml/v1/text/chat' });
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Tell a long story.' }],
      max_tokens: 40,
      stream: true,
    });
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(text.length).toBeGreaterThan(0);
  });

  it('a silent upstream (watsonx=up-wx-quick, timeout 500 ms) ends the stream with the watsonx error event', async () => {
    upstream.faults.push({ kind: 'stall', afterEvents: 2, path: '/ml/v1/text/generation_stream' });
    const res = await fetch(`${gw.url}/ml/v1/text/generation_stream?version=2024-05-01`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model_id: 'ibm/granite-13b-instruct-v2',
        input: 'x',
        project_id: 'p',
        parameters: { max_new_tokens: 30 },
      }),
    });
    const text = await res.text();
    expect(text).toMatch(/event: error\ndata: /);
  });

  it('a parameter the upstream cannot take is a 400 naming it; --ignore-unsupported drops it and says so', async () => {
    // watsonx's chat takes no `time_limit`? It does; OpenAI's does not: the openai upstream refuses top_k.
    const strict = await gateway(['--upstream', 'up-openai']);
    const body = {
      model_id: 'ibm/granite-13b-instruct-v2',
      input: 'x',
      project_id: 'p',
      parameters: { max_new_tokens: 3, top_k: 5 },
    };
    const post = (url: string) =>
      fetch(`${url}/ml/v1/text/generation?version=2024-05-01`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const refused = await post(strict.url);
    expect(refused.status).toBe(400);
    const words = (await refused.json()) as { errors: Array<{ message: string }> };
    expect(words.errors[0]!.message).toMatch(/top_k/);
    const lenient = await gateway(['--upstream', 'up-openai', '--ignore-unsupported']);
    const dropped = await post(lenient.url);
    expect(dropped.status).toBe(200);
    expect(dropped.headers.get('x-textgen-ignored')).toMatch(/top_k/);
  });
});

describe("textgen's Aleph Alpha and Open Inference clients through serve --upstream", () => {
  let viaOpenAi: Gateway;
  let viaWatsonx: Gateway;
  beforeAll(async () => {
    [viaOpenAi, viaWatsonx] = await Promise.all([
      gateway(['--upstream', 'up-openai']),
      gateway(['--upstream', 'up-wx']),
    ]);
  });

  for (const [provider, model] of [
    ['aleph-alpha', 'luminous-base'],
    ['open-inference', 'demo'],
  ] as const) {
    for (const via of ['openai', 'watsonx'] as const) {
      it(`${provider} complete, plain and --stream, served by the ${via} upstream`, async () => {
        const gw = via === 'openai' ? viaOpenAi : viaWatsonx;
        const args = ['--provider', provider, '--url', gw.url, '--api-key', FRONT_TOKEN, 'complete', '-m', model];
        const opts = { env: home.env };
        const plain = await runBin([...args, '--max-tokens', '6', '--temperature', '0', 'Rivers'], opts);
        expect(plain.stderr).toBe('');
        expect(plain.exitCode).toBe(0);
        expect(plain.stdout.trim().length).toBeGreaterThan(0);
        const streamed = await runBin([...args, '--stream', '--max-tokens', '6', '--temperature', '0', 'Rivers'], opts);
        expect(streamed.exitCode).toBe(0);
        expect(streamed.stdout).toBe(plain.stdout);
        expectNoFrontToken();
      });
    }
  }
});

describe('--require-auth still guards the front', () => {
  it("no credentials: 401 in the front dialect and nothing sent upstream; serve's own key: answered", async () => {
    const gw = await gateway(['--upstream', 'up-openai', '--require-auth']);
    upstream.requests.length = 0;
    const refused = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(refused.status).toBe(401);
    expect(upstream.requests).toHaveLength(0);
    const openai = new OpenAI({ apiKey: 'local-apikey', baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const ok = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 3,
    });
    expect(ok.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expectNoFrontToken();
  });
});
