/**
 * Record through `serve --upstream … --record DIR`, then replay with the upstream stopped (`--replay DIR`): every
 * front dialect answers with the same body bytes and the same stream event boundaries, serve's own ids and
 * timestamps included (src/emulator/core/answer-clock.ts, src/cassette/front-times.ts). Raw HTTP for the four
 * fronts, plain and streamed, an upstream error recorded and replayed; the `openai` and IBM SDKs' results
 * deep-equal, ids and times included. docs/cassettes.md, "Byte for byte".
 */
import type { ResultPromise } from 'execa';
import OpenAI from 'openai';
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import { BearerTokenAuthenticator } from '@ibm-cloud/watsonx-ai/authentication';
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { startGateway, upstreamArgs, upstreamProfileLines, stopGateways } from '../helpers/upstream-gateway.js';

const UPSTREAM_KEY = 'replay-bytes-upstream-key-77aa';
const home = makeHome();
const CASSETTE = join(home.dir, 'cassette');
let upstream: RunningServer;
let config: string;

const UPSTREAMS = upstreamArgs({
  watsonx: 'up-openai',
  'aleph-alpha': 'up-openai',
  'open-inference': 'up-openai',
  openai: 'up-wx',
});

const gateway = (args: string[], env: Record<string, string> = {}) =>
  startGateway(config, [...UPSTREAMS, ...args], { ...home.env, ...env });

async function stop(gw: { child: ResultPromise }): Promise<void> {
  gw.child.kill('SIGTERM');
  await gw.child;
}

/** One front call as the wire carried it: the status, the body's bytes, and for a stream each read's bytes. */
interface Wire {
  status: number;
  body: string;
  events: string[];
}

/** The body split at its SSE event boundaries (a blank line), or at its JSON lines (Aleph Alpha, Open Inference). */
function boundaries(body: string): string[] {
  return body.split(/\n\n|\n(?=\{)/).filter((e) => e.trim() !== '');
}

async function call(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Wire> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer front-token', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text, events: boundaries(text) };
}

const V = '?version=2024-05-01';
const WX_GEN = {
  model_id: 'ibm/granite-13b-instruct-v2',
  input: 'Write about rivers.',
  project_id: 'p',
  parameters: { max_new_tokens: 6, decoding_method: 'greedy' },
};
const WX_CHAT = {
  model_id: 'ibm/granite-3-8b-instruct',
  messages: [{ role: 'user', content: 'Name a river.' }],
  project_id: 'p',
  max_tokens: 6,
  temperature: 0,
};
const OA_CHAT = {
  model: 'gpt-4o',
  messages: [{ role: 'user', content: 'Name a lake.' }],
  max_tokens: 6,
  temperature: 0,
};
const OA_TOOLS = {
  ...OA_CHAT,
  tools: [
    {
      type: 'function',
      function: {
        name: 'weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
  ],
  tool_choice: 'required',
};

/** Every front call, in order; the same list recorded and replayed. */
async function everything(url: string): Promise<Record<string, Wire>> {
  return {
    wxGenerate: await call(url, `/ml/v1/text/generation${V}`, WX_GEN),
    wxGenerateStream: await call(url, `/ml/v1/text/generation_stream${V}`, WX_GEN),
    wxChat: await call(url, `/ml/v1/text/chat${V}`, WX_CHAT),
    wxChatStream: await call(url, `/ml/v1/text/chat_stream${V}`, WX_CHAT),
    openaiChat: await call(url, '/v1/chat/completions', OA_CHAT),
    openaiChatStream: await call(url, '/v1/chat/completions', { ...OA_CHAT, stream: true }),
    openaiTools: await call(url, '/v1/chat/completions', OA_TOOLS),
    openaiCompletions: await call(url, '/v1/completions', {
      model: 'gpt-4o',
      prompt: 'Rivers',
      max_tokens: 5,
      temperature: 0,
    }),
    openaiResponses: await call(url, '/v1/responses', {
      model: 'gpt-4o',
      input: 'Name a sea.',
      max_output_tokens: 16,
      temperature: 0,
    }),
    alephComplete: await call(url, '/complete', {
      model: 'luminous-base',
      prompt: 'Tell me about lakes',
      maximum_tokens: 5,
    }),
    alephCompleteStream: await call(url, '/complete', {
      model: 'luminous-base',
      prompt: 'Tell me about lakes',
      maximum_tokens: 5,
      stream: true,
    }),
    oipGenerate: await call(url, '/v2/models/demo/generate', {
      text_input: 'Tell me about lakes',
      parameters: { max_tokens: 5 },
    }),
    oipGenerateStream: await call(url, '/v2/models/demo/generate_stream', {
      // Another prompt: a plain and a streamed front call can make the same upstream call (one entry, the last
      // recorded), and Open Inference's front sends no temperature upstream, so the two answers would be sampled.
      text_input: 'Tell me about rivers',
      parameters: { max_tokens: 5 },
    }),
  };
}

async function sdkResults(url: string): Promise<unknown[]> {
  const openai = new OpenAI({ apiKey: 'front-token', baseURL: `${url}/v1`, maxRetries: 0 });
  const chat = await openai.chat.completions.create({
    ...OA_CHAT,
    messages: [{ role: 'user', content: 'Name a lake.' }],
  });
  const chunks: unknown[] = [];
  for await (const c of await openai.chat.completions.create({
    ...OA_CHAT,
    messages: [{ role: 'user', content: 'Name a lake.' }],
    stream: true,
  }))
    chunks.push(c);
  const wx = WatsonXAI.newInstance({
    serviceUrl: url,
    version: '2024-05-01',
    projectId: 'p',
    authenticator: new BearerTokenAuthenticator({ bearerToken: 'front-token' }),
  });
  const generated = await wx.generateText({
    input: WX_GEN.input,
    modelId: WX_GEN.model_id,
    parameters: WX_GEN.parameters,
  });
  return [chat, chunks, generated.result];
}

beforeAll(async () => {
  upstream = await startServer({ requireAuth: true, apiKeys: [UPSTREAM_KEY] });
  config = join(home.dir, 'gateway.yaml');
  writeFileSync(config, [...upstreamProfileLines(upstream.url), ''].join('\n'), { mode: 0o600 });
});

afterAll(async () => {
  stopGateways();
  await upstream.close();
  home.cleanup();
});

describe('record through serve --upstream, replay with the upstream stopped: the same bytes', {
  timeout: 180_000,
}, () => {
  let recorded: Record<string, Wire>;
  let recordedSdk: unknown[];
  let recordedError: Wire;

  it('records every front dialect, plain and streamed, and an upstream error', async () => {
    const gw = await gateway(['--record', CASSETTE], { UPSTREAM_KEY });
    recorded = await everything(gw.url);
    recordedSdk = await sdkResults(gw.url);
    upstream.faults.push({ kind: 'status', status: 500, times: 1 });
    recordedError = await call(gw.url, `/ml/v1/text/generation${V}`, { ...WX_GEN, input: 'An error, please.' });
    await stop(gw);
    for (const [name, wire] of Object.entries(recorded)) expect(wire.status, `${name}: ${wire.body}`).toBe(200);
    expect(recordedError.status).toBe(500);
    expect(recorded.wxGenerateStream.events.length).toBeGreaterThan(2);
    expect(recorded.openaiChatStream.events.length).toBeGreaterThan(2);
    // serve's own answers keep their time beside the entries, one small file per front request whose answer has a
    // time (Aleph Alpha's completions and Open Inference's answers carry none).
    const times = readdirSync(join(CASSETTE, '.front'));
    expect(times.length).toBeGreaterThanOrEqual(8);
    const one = JSON.parse(readFileSync(join(CASSETTE, '.front', times[0]!), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(one)).toEqual(['recorded_at', 'method', 'path']);
  });

  it('replays them byte for byte, event boundaries included, with the upstream gone', async () => {
    await upstream.close();
    // Later than the recording by at least a second, so a time taken from the clock would show.
    await new Promise((r) => setTimeout(r, 1100));
    const gw = await gateway(['--replay', CASSETTE], { TEXTGEN_CASSETTE_RUN: 'bytes-1' });
    const replayed = await everything(gw.url);
    const replayedSdk = await sdkResults(gw.url);
    const replayedError = await call(gw.url, `/ml/v1/text/generation${V}`, { ...WX_GEN, input: 'An error, please.' });
    await stop(gw);
    for (const name of Object.keys(recorded)) {
      expect(replayed[name]!.status, name).toBe(recorded[name]!.status);
      expect(replayed[name]!.body, name).toBe(recorded[name]!.body);
      expect(replayed[name]!.events, name).toEqual(recorded[name]!.events);
    }
    expect(replayedSdk).toEqual(recordedSdk);
    expect(replayedError).toEqual(recordedError);
  });

  it('cassette prune weighs the kept answer times as it weighs entries: those the replay used stay', async () => {
    const times = readdirSync(join(CASSETTE, '.front'));
    // An answer time no replay used (its front request is gone from the suite), written long ago.
    const stray = join(CASSETTE, '.front', 'abcdefabcdefabcdef12.json');
    writeFileSync(stray, '{"recorded_at":"2026-01-01T00:00:00.000Z","method":"POST","path":"/v1/gone"}\n');
    utimesSync(stray, new Date('2026-01-01'), new Date('2026-01-01'));
    const env = { ...home.env, CI: 'true' };
    const dry = await runBin(['cassette', 'prune', CASSETTE, '--unused-since-run', 'bytes-1', '--dry-run'], { env });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout.trim().split('\n')).toEqual(['.front/abcdefabcdefabcdef12.json']);
    expect(dry.stderr).toMatch(/would remove 0 of \d+ entries and 1 kept answer time \(run bytes-1\)/);
    expect(readdirSync(join(CASSETTE, '.front'))).toHaveLength(times.length + 1);
    const done = await runBin(['cassette', 'prune', CASSETTE, '--unused-since-run', 'bytes-1'], { env });
    expect(done.exitCode, done.stderr).toBe(0);
    expect(readdirSync(join(CASSETTE, '.front')).sort()).toEqual([...times].sort());
    const old = await runBin(['cassette', 'prune', CASSETTE, '--older-than', '1d', '--dry-run'], { env });
    expect(old.exitCode, old.stderr).toBe(0);
    expect(old.stdout.trim()).toBe('');
  });

  it('two different front requests get different ids; the same one recorded again gets the same', async () => {
    const a = JSON.parse(recorded.openaiChat.body) as { id: string };
    const b = JSON.parse(recorded.openaiTools.body) as { id: string };
    expect(a.id).toMatch(/^chatcmpl-[0-9a-f]{24}$/);
    expect(b.id).not.toBe(a.id);
  });
});
