import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { CanonicalRequest, GenerateResult } from '../../src/contract/canonical.js';
import { StreamAggregator } from '../../src/generation/aggregate.js';
import { SseParser } from '../../src/http/sse-parser.js';
import { startServer, type RecordedRequest, type RunningServer } from '../../src/emulator/core/index.js';
import { alephAlphaGenerate } from '../../profiles/aleph-alpha/client/generate.js';
import { alephAlphaProtocol } from '../../profiles/aleph-alpha/server/index.js';
import type { GenerateTarget } from '../../src/contract/adapter.js';
import {
  alephAlphaCompletionRequestSchema,
  alephAlphaCompletionResponseSchema,
  alephAlphaStreamEventSchema,
} from '../contract/aleph-alpha-schemas.js';
import { testProfile } from '../helpers/profile.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

const TOKEN = 'aa-test-token';
let server: RunningServer;
const home = makeHome();

beforeAll(async () => {
  server = await startServer({
    requestLog: { max: 1000 },
    protocols: [alephAlphaProtocol],
    requireAuth: true,
    apiKeys: [TOKEN],
  });
  const dir = join(home.dir, 'config', 'textgen');
  mkdirSync(dir, { recursive: true });
  const profile = (streaming: boolean) =>
    `    provider: aleph-alpha\n    url: ${server.url}\n    streaming: ${streaming}\n    retries: 0\n    auth: { type: bearer, token_env: AA_TOKEN }\n    defaults: { model: luminous-base }\n`;
  writeFileSync(join(dir, 'config.yaml'), `profiles:\n  aa:\n${profile(false)}  aa-stream:\n${profile(true)}`);
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});
afterEach(() => {
  // Every request that reached the server was built by the client mapping: each must be a valid 1.16 (+stream) request.
  for (const r of server.requests) expectValidRequest(r);
  server.requests.length = 0;
  server.faults.length = 0;
});

function expectValidRequest(r: RecordedRequest): void {
  expect(`${r.method} ${r.path}`).toBe('POST /complete');
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
  const parsed = alephAlphaCompletionRequestSchema.safeParse(r.json);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
  const streaming = (r.json as { stream?: boolean }).stream === true;
  expect(r.headers.accept).toBe(streaming ? 'text/event-stream' : 'application/json');
}

/** The profile's request, sent; the server's answer, checked against the contract and parsed back. */
async function roundTrip(
  request: CanonicalRequest,
  target: GenerateTarget,
  streaming = false,
): Promise<GenerateResult> {
  const spec = alephAlphaGenerate.build(
    request,
    target,
    testProfile({ provider: 'aleph-alpha', url: server.url, settings: { streaming } }),
  );
  const res = await fetch(spec.url, {
    method: spec.method,
    headers: { ...spec.headers, authorization: `Bearer ${TOKEN}` },
    body: spec.body!,
  });
  expect(res.status).toBe(200);
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const body = alephAlphaCompletionResponseSchema.parse(await res.json());
    return alephAlphaGenerate.parse(body, request, target);
  }
  const parser = new SseParser();
  const text = await res.text();
  const decode = alephAlphaGenerate.decoder(request, target);
  const aggregator = new StreamAggregator();
  for (const event of [...parser.push(text), ...parser.end()]) {
    if (event.data !== '[DONE]') alephAlphaStreamEventSchema.parse(JSON.parse(event.data));
    const step = decode(event);
    if (step.type === 'end') break;
    if (step.type === 'error') throw new Error(step.message);
    if (step.type === 'chunk') aggregator.add(step.chunk);
  }
  return aggregator.result();
}

const model: GenerateTarget = { model: 'luminous-extended', stream: false };

describe('client mapping → local server → canonical result', () => {
  test('a plain completion: text, stop reason, token counts and model', async () => {
    const result = await roundTrip({ input: 'An apple a day', parameters: { max_new_tokens: 10 } }, model);
    expect(result.model_id).toBe('luminous-extended');
    expect(result.model_version).toBe('2022-04');
    const item = result.results[0]!;
    expect(item.generated_text.length).toBeGreaterThan(0);
    expect(['max_tokens', 'eos_token']).toContain(item.stop_reason);
    expect(item.input_token_count).toBe(4);
    expect(item.generated_token_count).toBeLessThanOrEqual(10);
  });

  test('every option at once: echo, log probabilities with alternatives, stop sequence, minimum tokens, n', async () => {
    const request: CanonicalRequest = {
      input: 'An apple a day',
      n: 2,
      parameters: {
        max_new_tokens: 20,
        min_new_tokens: 1,
        stop_sequences: ['.'],
        decoding_method: 'sample',
        temperature: 0.8,
        top_k: 5,
        return_options: { input_text: true, generated_tokens: true, token_logprobs: true, top_n_tokens: 2 },
      },
    };
    const result = await roundTrip(request, model);
    expect(result.results).toHaveLength(2);
    for (const item of result.results) {
      expect(item.input_text).toBe('An apple a day');
      expect(item.generated_text.startsWith('An apple a day')).toBe(false);
      expect(item.generated_tokens!.map((t) => t.text).join('')).toBe(item.generated_text);
      for (const t of item.generated_tokens!) {
        expect(t.logprob).toBeLessThanOrEqual(0);
        expect(t.top_tokens!.length).toBeGreaterThanOrEqual(1);
        expect(t.top_tokens!.length).toBeLessThanOrEqual(2);
      }
      if (item.stop_reason === 'stop_sequence') expect(item.generated_text.endsWith('.')).toBe(false);
    }
    expect(result.results[0]!.input_token_count).toBe(2 * 4);
  });

  test('include_stop_sequence true puts the stop sequence AA left out back at the end', async () => {
    const base = { input: 'Tell me a story', parameters: { max_new_tokens: 60, stop_sequences: ['.'] } };
    const without = (await roundTrip(base, model)).results[0]!;
    expect(without.stop_reason).toBe('stop_sequence');
    const withStop = (
      await roundTrip({ ...base, parameters: { ...base.parameters, include_stop_sequence: true } }, model)
    ).results[0]!;
    expect(withStop.generated_text).toBe(`${without.generated_text}.`);
  });

  test('greedy streamed and not streamed give the same canonical result', async () => {
    const request = (): CanonicalRequest => ({
      input: 'Write about the sea',
      parameters: {
        decoding_method: 'greedy',
        max_new_tokens: 25,
        stop_sequences: [','],
        return_options: { input_text: true, token_logprobs: true, top_n_tokens: 1 },
      },
    });
    const plain = await roundTrip(request(), model);
    const streamed = await roundTrip(request(), { ...model, stream: true }, true);
    expect(server.requests.map((r) => (r.json as { stream?: boolean }).stream)).toEqual([undefined, true]);
    expect(streamed.results).toStrictEqual(plain.results);
    expect(streamed.model_id).toBe('luminous-extended');
  });
});

describe('through the CLI', () => {
  const env = { ...home.env, AA_TOKEN: TOKEN };
  const cli = (args: string[]) => runInProcess(args, { env });

  test('--stream on a 1.16 profile sends a plain request and shows the whole answer', async () => {
    const r = await cli(['--profile', 'aa', 'complete', '--stream', '--max-tokens', '8', 'An apple a day']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.json).not.toHaveProperty('stream');
    expect(server.requests[0]!.headers.accept).toBe('application/json');
  });

  test('a streaming profile streams: jsonl writes one canonical chunk per event', async () => {
    const r = await cli([
      '--profile',
      'aa-stream',
      'complete',
      '--stream',
      '--max-tokens',
      '5',
      '--min-tokens',
      '5',
      '-o',
      'jsonl',
      'An apple a day',
    ]);
    expect(r.exitCode).toBe(0);
    expect((server.requests[0]!.json as { stream?: boolean }).stream).toBe(true);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as GenerateResult);
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines.at(-1)!.results[0]).toMatchObject({ generated_token_count: 5, input_token_count: 4 });
  });

  test('an error inside a 200 stream: the partial text is written, exit 6', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 3 });
    const r = await cli([
      '--profile',
      'aa-stream',
      'complete',
      '--stream',
      '--max-tokens',
      '10',
      '--min-tokens',
      '10',
      'An apple a day',
    ]);
    expect(r.exitCode).toBe(6);
    expect(r.stdout.trim().split(/\s+/).length).toBeGreaterThanOrEqual(2);
    expect(r.stderr).toMatch(/aleph[ -]alpha stream broke off: INTERNAL_ERROR The model stopped while generating/i);
  });

  test('QUEUE_FULL names provider, status, code, message and trace id; exit 4', async () => {
    server.faults.push({ kind: 'status', status: 503 });
    const r = await cli(['--profile', 'aa', 'complete', 'An apple a day']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(
      /aleph-alpha returned HTTP 503 QUEUE_FULL: The model is busy: its queue is full; retry later \(trace [0-9a-f-]{36}\)/,
    );
  });

  test('a wrong token is an auth failure, exit 3', async () => {
    const r = await runInProcess(['--profile', 'aa', 'complete', 'An apple a day'], {
      env: { ...env, AA_TOKEN: 'wrong' },
    });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/HTTP 401 UNAUTHENTICATED/);
    server.requests.length = 0; // this one carries the wrong token on purpose
  });

  test('deployment text-generate with --id-or-name as the model and include_stop_sequence', async () => {
    const r = await cli([
      '--profile',
      'aa',
      'deployment',
      'text-generate',
      '--id-or-name',
      'luminous-supreme',
      '--input',
      'Tell me a story',
      '--parameters-max-new-tokens',
      '60',
      '--parameters-stop-sequences',
      '.',
      '--parameters-include-stop-sequence',
      'true',
      '-o',
      'json',
    ]);
    expect(r.exitCode).toBe(0);
    const result = JSON.parse(r.stdout) as GenerateResult;
    expect(result.model_id).toBe('luminous-supreme');
    expect(result.results[0]).toMatchObject({ stop_reason: 'stop_sequence' });
    expect(result.results[0]!.generated_text.endsWith('.')).toBe(true);
  });
});
