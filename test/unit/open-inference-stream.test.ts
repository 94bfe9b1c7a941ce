import { describe, expect, test } from 'vitest';
import type { CanonicalRequest } from '../../src/contract/canonical.js';
import { StreamAggregator } from '../../src/generation/aggregate.js';
import { SseParser } from '../../src/http/sse-parser.js';
import { openInferenceGenerate } from '../../profiles/open-inference/client/generate.js';
import type { StreamStep } from '../../src/contract/adapter.js';

/** A whole stream body through the real SSE parser and one decoder, chunk by chunk as the CLI does it. */
function decode(body: string, request: CanonicalRequest = { input: 'Q' }, chunkSize = body.length): StreamStep[] {
  const parser = new SseParser();
  const decoder = openInferenceGenerate.decoder(request);
  const events = [];
  for (let i = 0; i < body.length; i += chunkSize) events.push(...parser.push(body.slice(i, i + chunkSize)));
  events.push(...parser.end());
  return events.map(decoder);
}

/** What the CLI ends up with: chunks folded until an end or error step. */
function aggregate(steps: StreamStep[]) {
  const aggregator = new StreamAggregator();
  let error: Extract<StreamStep, { type: 'error' }> | undefined;
  for (const step of steps) {
    if (step.type === 'end') break;
    if (step.type === 'error') {
      error = step;
      aggregator.markStopped('error');
      break;
    }
    if (step.type === 'chunk') aggregator.add(step.chunk);
  }
  return { result: aggregator.result(), error };
}

const tok = (id: number, text: string, logprob = -0.5) => ({ id, text, logprob, special: false });
const msg = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;

describe('generate_stream decoding', () => {
  test('Triton: plain messages and no end marker, the body just ends (even without the last blank line)', () => {
    const body =
      msg({ text_output: 'Hello', model_name: 'llama', model_version: '1' }) +
      msg({ text_output: ' there', model_name: 'llama', model_version: '1' }) +
      `data: ${JSON.stringify({ text_output: '!', model_name: 'llama', model_version: '1' })}`;
    const steps = decode(body);
    expect(steps.map((s) => s.type)).toEqual(['chunk', 'chunk', 'chunk']);
    const { result, error } = aggregate(steps);
    expect(error).toBeUndefined();
    expect(result).toMatchObject({
      model_id: 'llama',
      model_version: '1',
      results: [{ generated_text: 'Hello there!', stop_reason: 'not_finished', input_token_count: 0 }],
    });
  });

  test('with details: tokens, cumulative counts and the finish reason on the last message', () => {
    const body =
      msg({ text_output: ' a', model_name: 'm', details: { token: tok(1, ' a', -0.1) } }) +
      msg({ text_output: ' b', model_name: 'm', details: { token: tok(2, ' b', -0.2) } }) +
      msg({ text_output: ' c', model_name: 'm', details: { finish_reason: 'length', token: tok(3, ' c', -0.3) } });
    const steps = decode(body, {
      input: 'Q',
      parameters: { return_options: { generated_tokens: true, token_logprobs: true } },
    });
    const chunks = steps.map((s) => (s.type === 'chunk' ? s.chunk.results[0] : undefined));
    expect(chunks.map((c) => c?.generated_token_count)).toEqual([1, 2, 3]);
    expect(chunks.map((c) => c?.stop_reason)).toEqual(['not_finished', 'not_finished', 'max_tokens']);
    const { result } = aggregate(steps);
    expect(result.results[0]).toEqual({
      generated_text: ' a b c',
      stop_reason: 'max_tokens',
      generated_token_count: 3,
      input_token_count: 0,
      generated_tokens: [
        { text: ' a', logprob: -0.1 },
        { text: ' b', logprob: -0.2 },
        { text: ' c', logprob: -0.3 },
      ],
    });
  });

  test('the raw event of every chunk is the message itself, for --raw', () => {
    const message = { text_output: 'x', model_name: 'm', custom_output: [1, 2] };
    const [step] = decode(msg(message));
    expect(step).toMatchObject({ type: 'chunk', wireBody: message });
  });

  test('text_output as an array of strings is joined', () => {
    const { result } = aggregate(
      decode(msg({ text_output: ['a', 'b'], model_name: 'm' }) + msg({ text_output: ['c'], model_name: 'm' })),
    );
    expect(result.results[0]!.generated_text).toBe('abc');
  });

  test('{"error"} inside a 200 stream is an error step after the text so far', () => {
    const body =
      msg({ text_output: 'Once', model_name: 'm' }) +
      msg({ error: 'Request failed during generation: CUDA out of memory', error_type: 'generation' });
    const steps = decode(body);
    expect(steps[1]).toEqual({
      type: 'error',
      message: 'Request failed during generation: CUDA out of memory',
      code: 'generation',
      wireBody: { error: 'Request failed during generation: CUDA out of memory', error_type: 'generation' },
    });
    const { result, error } = aggregate(steps);
    expect(error).toBeDefined();
    expect(result.results[0]).toMatchObject({ generated_text: 'Once', stop_reason: 'error' });
  });

  test('TGI: data:{json} without a space and keep-alive comments, split across chunks anywhere', () => {
    const body =
      ':\n\n' +
      `data:${JSON.stringify({ text_output: 'Hé', model_name: 'm' })}\n\n` +
      ': keep-alive\n\n' +
      `data:${JSON.stringify({ text_output: 'llo', model_name: 'm', details: { finish_reason: 'eos_token', token: tok(3, 'llo') } })}\n\n`;
    for (const size of [1, 3, 7, body.length]) {
      const { result } = aggregate(decode(body, { input: 'Q' }, size));
      expect(result.results[0], `chunks of ${size}`).toMatchObject({
        generated_text: 'Héllo',
        stop_reason: 'eos_token',
      });
    }
  });

  test("TGI's own stream: a top-level token and no text_output; special tokens add no text; details at the end", () => {
    const body =
      msg({ index: 1, token: tok(10, ' Hi'), generated_text: null, details: null }) +
      msg({
        index: 2,
        token: { id: 2, text: '</s>', logprob: -0.01, special: true },
        generated_text: ' Hi',
        details: { finish_reason: 'eos_token', generated_tokens: 2, seed: 5 },
      });
    const { result } = aggregate(decode(body));
    expect(result.results[0]).toEqual({
      generated_text: ' Hi',
      stop_reason: 'eos_token',
      generated_token_count: 2,
      input_token_count: 0,
      seed: 5,
    });
  });

  test('the local server shape: top-level token on every message, details on the last, nothing counted twice', () => {
    const body =
      msg({ text_output: ' a', model_name: 'm', model_version: '1', token: tok(1, ' a') }) +
      msg({
        text_output: ' b',
        model_name: 'm',
        model_version: '1',
        token: tok(2, ' b'),
        details: { finish_reason: 'stop_sequence', token: tok(2, ' b'), generated_tokens: 2 },
      });
    const { result } = aggregate(
      decode(body, { input: 'Q', parameters: { return_options: { generated_tokens: true } } }),
    );
    expect(result.results[0]).toEqual({
      generated_text: ' a b',
      stop_reason: 'stop_sequence',
      generated_token_count: 2,
      input_token_count: 0,
      generated_tokens: [{ text: ' a' }, { text: ' b' }],
    });
  });

  test('vLLM counts: num_input_tokens and num_output_tokens', () => {
    const body =
      msg({ text_output: 'a', model_name: 'm', num_input_tokens: 6, num_output_tokens: 1 }) +
      msg({ text_output: 'b', model_name: 'm', num_input_tokens: 6, num_output_tokens: 2 });
    expect(aggregate(decode(body)).result.results[0]).toMatchObject({ generated_token_count: 2, input_token_count: 6 });
  });

  test('data: [DONE] is tolerated as an end marker', () => {
    const steps = decode(
      msg({ text_output: 'a', model_name: 'm' }) + 'data: [DONE]\n\n' + msg({ text_output: 'never', model_name: 'm' }),
    );
    expect(steps.map((s) => s.type)).toEqual(['chunk', 'end', 'chunk']);
    expect(aggregate(steps).result.results[0]!.generated_text).toBe('a');
  });

  test('a data line that is not JSON is an error step naming it', () => {
    const [, step] = decode(msg({ text_output: 'a', model_name: 'm' }) + 'data: {"text_output":\n\n');
    expect(step).toMatchObject({
      type: 'error',
      code: 'malformed_event',
      message: 'malformed event from the service (not JSON): {"text_output":',
    });
  });

  test('event: error from a proxy is an error step, JSON or not', () => {
    expect(decode('event: error\ndata: {"error":"upstream reset"}\n\n')[0]).toMatchObject({
      type: 'error',
      message: 'upstream reset',
    });
    expect(decode('event: error\ndata: gateway gone\n\n')[0]).toMatchObject({ type: 'error', message: 'gateway gone' });
  });

  test.each([
    ['an empty data line', 'data:\n\n'],
    ['an empty object', 'data: {}\n\n'],
  ])('%s is ignored', (_name, body) => {
    expect(decode(body)).toEqual([{ type: 'ignore' }]);
  });

  test("a JSON array is ignored as not the protocol's (an error only when the stream holds nothing else)", () => {
    expect(decode('data: [1]\n\n')).toEqual([
      { type: 'ignore', unexpected: 'the event has no "text_output" string (nor a "token")' },
    ]);
  });
});
