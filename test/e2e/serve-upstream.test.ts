/**
 * `textgen serve --upstream` through the built CLI, beyond the SDK suite (test/sdk/gateway-sdk.test.ts): bad flags
 * are one usage line and exit 2; a profile's `upstream:` field stands in for the flag; an upstream that does not
 * answer in its profile's timeout is a 504, one that is down a 502, in the front protocol's shape; an upstream
 * without a chat API (Open Inference) answers a chat front through its generation API; embeddings go to the
 * upstream's embeddings API. The upstream is serve's emulator in-process, with a request log.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { startGateway, stopGateways } from '../helpers/upstream-gateway.js';

const home = makeHome();
let upstream: RunningServer;
let config: string;

beforeAll(async () => {
  upstream = await startServer({ requestLog: { max: 10_000 } });
  config = join(home.dir, 'gateway.yaml');
  writeFileSync(
    config,
    [
      'profiles:',
      '  gw:',
      '    provider: watsonx',
      '    upstream: { openai: up-oi, watsonx: up-embed }',
      '  up-oi:',
      '    provider: open-inference',
      `    url: ${upstream.url}`,
      '    streaming: true',
      '    defaults: { model: demo }',
      '  up-embed:',
      '    provider: openai',
      `    url: ${upstream.url}/v1`,
      '    auth: { type: none }',
      '    defaults: { model: text-embedding-3-small }',
      '  up-quick:',
      '    provider: openai',
      `    url: ${upstream.url}/v1`,
      '    timeout: 400',
      '    auth: { type: none }',
      '    defaults: { model: gpt-4o-mini }',
      '  up-wx:',
      '    provider: watsonx',
      `    url: ${upstream.url}`,
      '    project_id: up-project',
      '    auth: { type: bearer, token: t }',
      '    defaults: { model: ibm/granite-3-8b-instruct }',
      '  up-down:',
      '    provider: openai',
      '    url: http://127.0.0.1:9/v1',
      '    auth: { type: none }',
      '    defaults: { model: gpt-4o-mini }',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
});

afterEach(() => {
  upstream.faults.length = 0;
  upstream.requests.length = 0;
});

afterAll(async () => {
  stopGateways();
  await upstream.close();
  home.cleanup();
});

const chat = (url: string, body: Record<string, unknown> = {}) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Name a river.' }],
      max_tokens: 6,
      temperature: 0,
      ...body,
    }),
  });

describe('serve --upstream: usage errors', () => {
  it.each([
    [['--upstream', 'nosuch=up-oi'], /^error: --upstream "nosuch=up-oi": unknown front protocol "nosuch"$/m],
    [['--upstream', 'openai='], /^error: --upstream "openai=": no profile name$/m],
    [['--ignore-unsupported'], /^error: --ignore-unsupported is for --upstream$/m],
    [['--upstream', 'no-such-profile'], /^error: .*no-such-profile/m],
  ])('%j: one line, exit 2', async (args, line) => {
    const r = await runBin(['--config', config, 'serve', '--port', '0', ...args], { env: home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(line);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("a profile's upstream: field", () => {
  it('textgen --profile gw serve forwards openai to up-oi and watsonx to up-embed, the rest to the engine', async () => {
    const named = await startGateway(config, [], home.env, ['--profile', 'gw']);
    expect(named.stderr()).toContain('textgen serve: watsonx → upstream up-embed (openai at');
    expect(named.stderr()).toContain('textgen serve: openai → upstream up-oi (open-inference at');
    expect(named.stderr()).not.toContain('aleph-alpha → upstream');

    // A chat front, an upstream without chat: its generation API continues the transcript, streamed.
    const whole = await chat(named.url);
    expect(whole.status).toBe(200);
    const answer = ((await whole.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message
      .content;
    expect(answer.length).toBeGreaterThan(0);
    const sent = upstream.requests.find((r) => r.path === '/v2/models/demo/generate_stream')!;
    expect((sent.json as { text_input: string }).text_input).toMatch(/^User: Name a river\.\n\nAssistant:\n$/);
    const streamed = await (await chat(named.url, { stream: true })).text();
    const text = [...streamed.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('');
    expect(text).toBe(answer);

    // Embeddings: the watsonx front, the OpenAI-compatible upstream's /v1/embeddings with the profile's model.
    const embedded = await fetch(`${named.url}/ml/v1/text/embeddings?version=2024-05-01`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model_id: 'ibm/slate-125m-english-rtrvr',
        project_id: 'p',
        inputs: ['a river', 'a lake'],
      }),
    });
    expect(embedded.status).toBe(200);
    const vectors = ((await embedded.json()) as { results: Array<{ embedding: number[] }> }).results;
    expect(vectors).toHaveLength(2);
    expect(vectors[0]!.embedding.length).toBeGreaterThan(10);
    const calls = upstream.requests.filter((r) => r.path === '/v1/embeddings');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.json).toMatchObject({ model: 'text-embedding-3-small', input: ['a river'] });
  }, 60_000);
});

describe('tokenize where the upstream has it', () => {
  const tokenize = (url: string) =>
    fetch(`${url}/ml/v1/text/tokenization?version=2024-05-01`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model_id: 'ibm/granite-13b-instruct-v2',
        input: 'Name a river.',
        project_id: 'p',
        parameters: { return_tokens: true },
      }),
    });

  it("a watsonx upstream's tokenization answers a watsonx front; an OpenAI-compatible one leaves it to serve", async () => {
    const viaWatsonx = await startGateway(config, ['--upstream', 'up-wx'], home.env);
    const res = await tokenize(viaWatsonx.url);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { token_count: number; tokens: string[] } };
    const sent = upstream.requests.find((r) => r.path === '/ml/v1/text/tokenization')!;
    expect(sent.json).toMatchObject({ model_id: 'ibm/granite-3-8b-instruct', input: 'Name a river.' });
    expect(body.result.token_count).toBeGreaterThan(0);
    expect(body.result.tokens).toHaveLength(body.result.token_count);

    upstream.requests.length = 0;
    const viaOpenAi = await startGateway(config, ['--upstream', 'up-embed'], home.env);
    const local = await tokenize(viaOpenAi.url);
    expect(local.status).toBe(200);
    expect(upstream.requests).toHaveLength(0);
  }, 60_000);
});

describe('an upstream that does not answer', () => {
  it('silent past its profile timeout: 504 upstream_timeout in the OpenAI shape', async () => {
    const gw = await startGateway(config, ['--upstream', 'up-quick'], home.env);
    upstream.faults.push({ kind: 'hang' });
    const res = await chat(gw.url);
    expect(res.status).toBe(504);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('upstream_timeout');
    expect(body.error.message).toMatch(/^upstream up-quick: /);
  }, 30_000);

  it('down: 502 upstream_unreachable in the watsonx shape', async () => {
    const gw = await startGateway(config, ['--upstream', 'watsonx=up-down'], home.env);
    const res = await fetch(`${gw.url}/ml/v1/text/generation?version=2024-05-01`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model_id: 'ibm/granite-13b-instruct-v2', input: 'x', project_id: 'p' }),
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { errors: Array<{ code: string }>; status_code: number };
    expect(body.status_code).toBe(502);
    expect(body.errors[0]!.code).toBe('upstream_unreachable');
  }, 30_000);
});
