import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CanonicalRequest, GenerateResult } from '../../src/contract/canonical.js';
import { StreamAggregator } from '../../src/generation/aggregate.js';
import type { HttpRequestSpec } from '../../src/contract/http.js';
import { SseParser } from '../../src/http/sse-parser.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { openInferenceGenerate } from '../../profiles/open-inference/client/generate.js';
import { openInferenceProtocol } from '../../profiles/open-inference/server/index.js';
import type { GenerateTarget, StreamStep } from '../../src/contract/adapter.js';
import { assertValid, oipValidators } from '../contract/oip-openapi.js';
import { testProfile } from '../helpers/profile.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 }, protocols: [openInferenceProtocol] });
});
afterAll(async () => {
  await server.close();
});

const v = oipValidators();
const profile = () => testProfile({ provider: 'open-inference', url: server.url });

async function send(spec: HttpRequestSpec): Promise<Response> {
  assertValid(v.generateRequest, JSON.parse(spec.body!), 'client request');
  const res = await fetch(spec.url, { method: spec.method, headers: spec.headers, body: spec.body! });
  const recorded = server.requests.at(-1)!;
  expect(recorded.path).toBe(new URL(spec.url).pathname);
  expect(recorded.json).toEqual(JSON.parse(spec.body!));
  return res;
}

/** The client mapping's request to the server, the answer back through the client mapping. */
async function generate(
  request: CanonicalRequest,
  target: Omit<GenerateTarget, 'stream'>,
  extra?: Record<string, unknown>,
): Promise<GenerateResult> {
  const res = await send(openInferenceGenerate.build(request, { ...target, stream: false }, profile(), extra));
  expect(res.status).toBe(200);
  const body = assertValid(v.generateResponse, await res.json(), 'server answer');
  return openInferenceGenerate.parse(body, request);
}

/** Streamed: every message through the SSE parser and the decoder, folded as the CLI folds them. */
async function generateStream(
  request: CanonicalRequest,
  target: Omit<GenerateTarget, 'stream'>,
): Promise<{ result: GenerateResult; steps: StreamStep[] }> {
  const res = await send(openInferenceGenerate.build(request, { ...target, stream: true }, profile()));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const parser = new SseParser();
  const decode = openInferenceGenerate.decoder(request);
  const aggregator = new StreamAggregator();
  const steps: StreamStep[] = [];
  for await (const chunk of res.body!) {
    for (const event of parser.push(chunk)) steps.push(decode(event));
  }
  for (const event of parser.end()) steps.push(decode(event));
  for (const step of steps) {
    if (step.type === 'error') {
      aggregator.markStopped('error');
      break;
    }
    if (step.type === 'chunk') aggregator.add(step.chunk);
  }
  return { result: aggregator.result(), steps };
}

const STORY: CanonicalRequest = {
  input: 'Tell me a story about the sea',
  parameters: {
    max_new_tokens: 12,
    random_seed: 11,
    stop_sequences: ['\n\n'],
    temperature: 0.8,
    top_p: 0.95,
    return_options: { generated_tokens: true, token_logprobs: true },
  },
};

describe('round trip through the local server', () => {
  test('plain: a canonical result with text, stop reason, counts and token data', async () => {
    const result = await generate(STORY, { deployment: 'sea-model' });
    const item = result.results[0]!;
    expect(result).toMatchObject({ model_id: 'sea-model', model_version: '1' });
    expect(['max_tokens', 'eos_token', 'stop_sequence']).toContain(item.stop_reason);
    expect(item.generated_token_count).toBe(item.generated_tokens!.length);
    expect(item.generated_tokens!.map((t) => t.text).join('')).toBe(item.generated_text);
    for (const t of item.generated_tokens!) expect(t.logprob).toBeLessThanOrEqual(0);
    expect(item.seed).toBe(11);
    expect(item.input_token_count).toBe(0);
  });

  test('streamed on a model:version path: the same text and stop reason as the plain answer', async () => {
    const plain = (await generate(STORY, { model: 'sea-model:2' })).results[0]!;
    const { result, steps } = await generateStream(STORY, { model: 'sea-model:2' });
    expect(server.requests.at(-1)!.path).toBe('/v2/models/sea-model/versions/2/generate_stream');
    expect(steps.every((s) => s.type === 'chunk')).toBe(true);
    expect(result.model_version).toBe('2');
    expect(result.results[0]).toMatchObject({
      generated_text: plain.generated_text,
      stop_reason: plain.stop_reason,
      generated_token_count: plain.generated_token_count,
      generated_tokens: plain.generated_tokens,
      seed: 11,
    });
  });

  test('--model-version and greedy decoding: deterministic, versioned path', async () => {
    const request: CanonicalRequest = {
      input: 'Hello',
      parameters: { decoding_method: 'greedy', max_new_tokens: 8, min_new_tokens: 8 },
    };
    const a = await generate(request, { deployment: 'demo', modelVersion: '5' });
    expect(server.requests.at(-1)!.path).toBe('/v2/models/demo/versions/5/generate');
    const b = await generate(request, { deployment: 'demo', modelVersion: '5' });
    expect(b.results[0]!.generated_text).toBe(a.results[0]!.generated_text);
    expect(a.results[0]).toMatchObject({ stop_reason: 'max_tokens', generated_token_count: 8 });
  });

  test('include_stop_sequence false and a stop sequence come back as stop_sequence without the stop text', async () => {
    const probe = await generate(
      { input: 'Tell me a long story', parameters: { max_new_tokens: 30, min_new_tokens: 30, random_seed: 5 } },
      { model: 'demo' },
    );
    const stop = probe.results[0]!.generated_text.split(' ').filter(Boolean)[2]!;
    const request: CanonicalRequest = {
      input: 'Tell me a long story',
      parameters: { max_new_tokens: 30, random_seed: 5, stop_sequences: [stop], include_stop_sequence: false },
    };
    const item = (await generate(request, { model: 'demo' })).results[0]!;
    expect(item.stop_reason).toBe('stop_sequence');
    expect(item.generated_text.endsWith(stop)).toBe(false);
    expect(probe.results[0]!.generated_text.startsWith(item.generated_text)).toBe(true);
  });

  test('a backend that puts the prompt in front of the answer: the prompt is removed', async () => {
    const request: CanonicalRequest = { input: 'Hello there', parameters: { max_new_tokens: 6, random_seed: 3 } };
    const clean = await generate(request, { model: 'demo' });
    const prefixed = await generate(request, { model: 'demo' }, { parameters: { exclude_input_in_output: false } });
    expect(JSON.parse(server.requests.at(-1)!.body).parameters.exclude_input_in_output).toBe(false);
    expect(prefixed.results[0]!.generated_text).toBe(clean.results[0]!.generated_text);
  });

  test('token counts the server sends on request (--extra) fill input_token_count', async () => {
    const result = await generate(
      { input: 'Hello there', parameters: { max_new_tokens: 3, min_new_tokens: 3 } },
      { model: 'demo' },
      { parameters: { return_num_input_tokens: true, return_num_output_tokens: true } },
    );
    expect(result.results[0]).toMatchObject({ input_token_count: 2, generated_token_count: 3 });
  });

  test('an error answer: status, code, message and the request id as trace', async () => {
    server.faults.push({ kind: 'status', status: 429 });
    const spec = openInferenceGenerate.build({ input: 'Hi' }, { model: 'demo', stream: false }, profile());
    const res = await send({ ...spec, headers: { ...spec.headers, 'x-request-id': 'rt-1' } });
    const headers = Object.fromEntries(res.headers);
    expect(openInferenceGenerate.parseError(res.status, await res.text(), headers)).toEqual({
      provider: 'open-inference',
      status: 429,
      code: 'overloaded',
      message: 'Model is overloaded',
      traceId: 'rt-1',
    });
  });

  test('an error inside the 200 stream: the text so far, then an error step', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 2 });
    const { result, steps } = await generateStream(
      { input: 'Tell me a long story', parameters: { max_new_tokens: 10, min_new_tokens: 10 } },
      { model: 'demo' },
    );
    expect(steps.map((s) => s.type)).toEqual(['chunk', 'chunk', 'error']);
    expect(steps[2]).toMatchObject({
      type: 'error',
      code: 'generation',
      message: expect.stringContaining('Request failed during generation'),
    });
    expect(result.results[0]!.stop_reason).toBe('error');
    expect(result.results[0]!.generated_text).not.toBe('');
  });
});
