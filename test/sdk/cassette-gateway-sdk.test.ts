/**
 * Cassettes on `serve --upstream` (docs/cassettes.md), with the vendors' SDKs in front: IBM's SDK over an
 * OpenAI-compatible upstream and the `openai` SDK over a watsonx upstream (through its IAM exchange), textgen's Aleph
 * Alpha and Open Inference clients over either, plain and streamed. `--record DIR` records the upstream calls;
 * `--replay DIR --on-miss forward` answers what it has and forwards and records the rest (a cache); then, with the
 * upstream stopped, no credential in the environment and every outgoing socket of serve refused by a preload,
 * `--replay DIR` gives the same answers and the same number of stream events, and a miss is a 404 in the front
 * dialect naming the key, the nearest entry and the first difference.
 */
import { execa, type ResultPromise } from 'execa';
import OpenAI from 'openai';
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import { BearerTokenAuthenticator } from '@ibm-cloud/watsonx-ai/authentication';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamArgs, upstreamProfileLines } from '../helpers/upstream-gateway.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { BIN, baseEnv, makeHome, runBin } from '../helpers/run-cli.js';

const UPSTREAM_KEY = 'cassette-upstream-key-5e1d';
const home = makeHome();
const CASSETTE = join(home.dir, 'cassette');
const PRELOAD = join(home.dir, 'no-network.mjs');
const children: ResultPromise[] = [];
let upstream: RunningServer;
let config: string;

const UPSTREAMS = upstreamArgs({
  watsonx: 'up-openai',
  'aleph-alpha': 'up-openai',
  openai: 'up-wx',
  'open-inference': 'up-wx',
});

interface Gateway {
  url: string;
  stderr: () => string;
  child: ResultPromise;
}

async function gateway(args: string[], env: Record<string, string>): Promise<Gateway> {
  const child = execa('node', [BIN, '--config', config, 'serve', '--port', '0', ...UPSTREAMS, ...args], {
    env: { ...baseEnv(), CI: 'true', ...home.env, ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 120_000,
  });
  children.push(child);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString('utf8');
      const m = /listening on (https?:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    void child.then(() => reject(new Error(`serve ended before listening: ${stderr}`)));
  });
  return { url, stderr: () => stderr, child };
}

async function stop(gw: Gateway): Promise<void> {
  gw.child.kill('SIGTERM');
  await gw.child;
}

const entries = () => readdirSync(CASSETTE).filter((n) => !n.startsWith('.'));

/** What each client got: the answers and, for streams, how many events. */
interface Answers {
  wxText: string;
  wxTokens: number | undefined;
  wxStream: string[];
  chat: string;
  chatFinish: string | null;
  chatStream: string[];
  aa: string;
  aaStream: string;
  oi: string;
  oiStream: string;
}

async function callEverything(url: string): Promise<Answers> {
  const wx = WatsonXAI.newInstance({
    serviceUrl: url,
    projectId: 'front-project',
    authenticator: new BearerTokenAuthenticator({ bearerToken: 'front-token-0001' }),
  });
  const parameters = { decoding_method: 'greedy', max_new_tokens: 8 } as const;
  const whole = await wx.generateText({
    input: 'Write about rivers.',
    modelId: 'ibm/granite-13b-instruct-v2',
    parameters,
  });
  const stream = await wx.generateTextStream({
    input: 'Write about rivers.',
    modelId: 'ibm/granite-13b-instruct-v2',
    parameters,
    returnObject: true,
  });
  const wxStream: string[] = [];
  for await (const e of stream) wxStream.push(e.data.results[0]!.generated_text);

  const openai = new OpenAI({ apiKey: 'front-token-0001', baseURL: `${url}/v1`, maxRetries: 0 });
  const messages = [{ role: 'user' as const, content: 'Name a river.' }];
  const chat = await openai.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 9, temperature: 0 });
  const chatStream: string[] = [];
  for await (const chunk of await openai.chat.completions.create({
    model: 'gpt-4o',
    messages,
    max_tokens: 9,
    temperature: 0,
    stream: true,
  }))
    chatStream.push(chunk.choices[0]?.delta?.content ?? '');

  const cli = async (provider: string, stream: boolean) => {
    const r = await runBin(
      [
        '--provider',
        provider,
        '--url',
        url,
        'deployment',
        stream ? 'text-generate-stream' : 'text-generate',
        '--id-or-name',
        'luminous-base',
        '--input',
        'Tell me about lakes',
        '--parameters-max-new-tokens',
        '6',
        // Greedy: a plain and a streamed front call may make the same upstream call, whose one entry answers both.
        '--parameters-decoding-method',
        'greedy',
        '-o',
        'jsonl',
      ],
      { env: home.env },
    );
    expect(r.stderr, `${provider} ${stream}`).toBe('');
    expect(r.exitCode, `${provider} ${stream}`).toBe(0);
    // The numbers and texts, not the front's own ids and clock.
    return r.stdout.replace(/"(created_at|created|id)":("[^"]*"|\d+),?/g, '');
  };
  return {
    wxText: whole.result.results[0]!.generated_text,
    wxTokens: whole.result.results[0]!.generated_token_count,
    wxStream,
    chat: chat.choices[0]!.message.content!,
    chatFinish: chat.choices[0]!.finish_reason,
    chatStream,
    aa: await cli('aleph-alpha', false),
    aaStream: await cli('aleph-alpha', true),
    oi: await cli('open-inference', false),
    oiStream: await cli('open-inference', true),
  };
}

beforeAll(async () => {
  upstream = await startServer({ requestLog: { max: 10_000 }, requireAuth: true, apiKeys: [UPSTREAM_KEY] });
  config = join(home.dir, 'gateway.yaml');
  writeFileSync(config, [...upstreamProfileLines(upstream.url), ''].join('\n'), { mode: 0o600 });
  writeFileSync(
    PRELOAD,
    [
      "import net from 'node:net';",
      'net.Socket.prototype.connect = function () {',
      "  process.stderr.write('no-network preload: socket connect refused\\n');",
      "  const err = Object.assign(new Error('network blocked'), { code: 'ECONNREFUSED' });",
      '  process.nextTick(() => this.destroy(err));',
      '  return this;',
      '};',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await upstream.close();
  home.cleanup();
});

// Each test starts serve and makes a dozen calls: seconds each on a loaded machine.
describe('serve --upstream with cassettes, the SDKs in front', { timeout: 180_000 }, () => {
  let recorded: Answers;

  it('--record DIR records the upstream calls (not the IAM exchange) while the clients are answered', async () => {
    const gw = await gateway(['--record', CASSETTE], { UPSTREAM_KEY });
    recorded = await callEverything(gw.url);
    await stop(gw);
    expect(recorded.wxText.length).toBeGreaterThan(0);
    expect(recorded.wxTokens).toBe(8);
    expect(recorded.wxStream.join('')).toBe(recorded.wxText);
    expect(recorded.chatStream.join('')).toBe(recorded.chat);
    expect(upstream.requests.some((r) => r.path === '/identity/token')).toBe(true);
    const names = entries();
    expect(names.length).toBeGreaterThanOrEqual(4);
    expect(names.some((n) => n.startsWith('watsonx-post-ml-v1-text-chat'))).toBe(true);
    expect(names.some((n) => n.startsWith('openai-post-v1-completions'))).toBe(true);
    expect(names.some((n) => n.includes('identity'))).toBe(false);
  });

  it('--replay DIR --on-miss forward answers hits from the cassette and forwards and records a miss', async () => {
    const gw = await gateway(['--replay', CASSETTE, '--on-miss', 'forward'], { UPSTREAM_KEY });
    upstream.requests.length = 0;
    const again = await callEverything(gw.url);
    expect(again).toEqual(recorded);
    expect(upstream.requests.filter((r) => r.path !== '/identity/token')).toEqual([]);
    const before = entries().length;
    const openai = new OpenAI({ apiKey: 'x', baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const fresh = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'Name a lake.' }], max_tokens: 5 };
    const first = await openai.chat.completions.create(fresh);
    expect(upstream.requests.filter((r) => r.path.startsWith('/ml/v1/text/chat'))).toHaveLength(1);
    const second = await openai.chat.completions.create(fresh);
    expect(second.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    expect(upstream.requests.filter((r) => r.path.startsWith('/ml/v1/text/chat'))).toHaveLength(1);
    await stop(gw);
    expect(entries().length).toBe(before + 1);
  });

  it('--replay DIR with the upstream stopped, no credentials and no network gives the same answers', async () => {
    await upstream.close();
    const gw = await gateway(['--replay', CASSETTE], { NODE_OPTIONS: `--import=${PRELOAD}` });
    const replayed = await callEverything(gw.url);
    expect(replayed).toEqual(recorded);
    // Same events in the same number: the streams were replayed event by event.
    expect(replayed.wxStream).toHaveLength(recorded.wxStream.length);
    expect(replayed.chatStream).toHaveLength(recorded.chatStream.length);

    // A miss: a 404 in the front dialect, with the key, the nearest entry and the first difference.
    const openai = new OpenAI({ apiKey: 'x', baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const error = (await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Name a sea.' }], max_tokens: 9, temperature: 0 })
      .catch((e: unknown) => e)) as { status?: number; message?: string; code?: string };
    expect(error.status).toBe(404);
    expect(error.code).toBe('cassette_miss');
    expect(error.message).toMatch(
      /cassette miss: no entry for watsonx POST \/ml\/v1\/text\/chat(_stream)? \(key [0-9a-f]{20}\); nearest is .*watsonx-post-ml-v1-text-chat[-a-z]*-[0-9a-f]{20}\.jsonl?, first different at \$\.body\.messages\[0\]\.content/,
    );
    await stop(gw);
    expect(gw.stderr()).not.toContain('no-network preload');
  });

  it('serve takes --record/--replay with --upstream only, and --on-miss with --replay only', async () => {
    const alone = await runBin(['serve', '--port', '0', '--replay', CASSETTE], { env: home.env });
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toMatch(/^error: serve takes --replay with --upstream only/);
    const onMiss = await runBin(
      ['--config', config, 'serve', '--port', '0', ...UPSTREAMS, '--record', CASSETTE, '--on-miss', 'forward'],
      { env: home.env },
    );
    expect(onMiss.exitCode).toBe(2);
    expect(onMiss.stderr).toMatch(/^error: --on-miss needs --replay DIR/);
  });
});
