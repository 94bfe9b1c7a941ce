import { describe, expect, test } from 'vitest';
import type { CanonicalParameters, CanonicalRequest } from '../../src/contract/canonical.js';
import { StreamAggregator } from '../../src/generation/aggregate.js';
import { SseParser } from '../../src/http/sse-parser.js';
import type { SseEvent } from '../../src/contract/http.js';
import { alephAlphaGenerate } from '../../profiles/aleph-alpha/client/generate.js';
import type { GenerateTarget, StreamStep } from '../../src/contract/adapter.js';

function events(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}

const data = (...payloads: unknown[]) =>
  payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');

/** Decodes a whole stream the way the CLI does: up to `end` or an error; returns the steps and the aggregate. */
function decode(text: string, request: CanonicalRequest = { input: 'An apple a day' }, target?: GenerateTarget) {
  const decoder = alephAlphaGenerate.decoder(request, target);
  const aggregator = new StreamAggregator();
  const steps: StreamStep[] = [];
  for (const event of events(text)) {
    const step = decoder(event);
    steps.push(step);
    if (step.type === 'chunk') aggregator.add(step.chunk);
    if (step.type === 'end' || step.type === 'error') break;
  }
  return { steps, result: aggregator.result() };
}

const SPEC_EXAMPLE = data(
  { type: 'stream_chunk', index: 0, completion: ' The New York Times' },
  { type: 'stream_summary', index: 0, model_version: '2022-04', finish_reason: 'maximum_tokens' },
  { type: 'completion_summary', num_tokens_prompt_total: 1, num_tokens_generated: 7 },
);

const withParameters = (parameters: CanonicalParameters): CanonicalRequest => ({ input: 'An apple a day', parameters });

describe('the stream events of the spec page', () => {
  test('chunk, summary, completion summary, [DONE] → deltas, stop reason, token counts, end', () => {
    const { steps, result } = decode(`${SPEC_EXAMPLE}data: [DONE]\n\n`);
    expect(steps.map((s) => s.type)).toEqual(['chunk', 'chunk', 'chunk', 'end']);
    const first = steps[0] as Extract<StreamStep, { type: 'chunk' }>;
    expect(first.wireBody).toStrictEqual({ type: 'stream_chunk', index: 0, completion: ' The New York Times' });
    expect(first.chunk.results).toStrictEqual([{ generated_text: ' The New York Times', stop_reason: 'not_finished' }]);
    expect(result.model_version).toBe('2022-04');
    expect(result.results).toStrictEqual([
      {
        generated_text: ' The New York Times',
        stop_reason: 'max_tokens',
        generated_token_count: 7,
        input_token_count: 1,
      },
    ]);
  });

  test('without [DONE] the stream simply ends with the body', () => {
    const { steps, result } = decode(SPEC_EXAMPLE);
    expect(steps.map((s) => s.type)).toEqual(['chunk', 'chunk', 'chunk']);
    expect(result.results[0]!.stop_reason).toBe('max_tokens');
  });

  test('model_id is the model the request was sent to', () => {
    expect(decode(SPEC_EXAMPLE, { input: 'x' }, { model: 'luminous-base', stream: true }).result.model_id).toBe(
      'luminous-base',
    );
  });

  test('several completions: each delta lands on its own index (earlier results padded empty)', () => {
    const text = data(
      { type: 'stream_chunk', index: 0, completion: ' one' },
      { type: 'stream_chunk', index: 1, completion: ' two' },
      { type: 'stream_chunk', index: 0, completion: ' more' },
      { type: 'stream_summary', index: 1, model_version: '2022-04', finish_reason: 'end_of_text' },
      { type: 'stream_summary', index: 0, model_version: '2022-04', finish_reason: 'maximum_tokens' },
      { type: 'completion_summary', num_tokens_prompt_total: 8, num_tokens_generated: 3 },
      '[DONE]',
    );
    const { steps, result } = decode(text, { input: 'x', n: 2 });
    const second = steps[1] as Extract<StreamStep, { type: 'chunk' }>;
    expect(second.chunk.results).toStrictEqual([
      { generated_text: '', stop_reason: 'not_finished' },
      { generated_text: ' two', stop_reason: 'not_finished' },
    ]);
    expect(result.results.map((r) => [r.generated_text, r.stop_reason])).toEqual([
      [' one more', 'max_tokens'],
      [' two', 'eos_token'],
    ]);
    expect(result.results[0]).toMatchObject({ generated_token_count: 3, input_token_count: 8 });
  });

  test('token data in chunks becomes generated_tokens', () => {
    const text = data(
      {
        type: 'stream_chunk',
        index: 0,
        completion: ' keeps',
        completion_tokens: [' keeps'],
        log_probs: [{ ' keeps': -0.3, ' is': -1 }],
      },
      { type: 'stream_summary', index: 0, model_version: '2022-04', finish_reason: 'maximum_tokens' },
    );
    const { result } = decode(text, withParameters({ return_options: { top_n_tokens: 1 } }));
    expect(result.results[0]!.generated_tokens).toStrictEqual([
      { text: ' keeps', logprob: -0.3, top_tokens: [{ text: ' keeps', logprob: -0.3 }] },
    ]);
  });

  test('stop_sequence_reached → stop_sequence; with include_stop_sequence true the sequence is streamed back in', () => {
    const text = data(
      { type: 'stream_chunk', index: 0, completion: ' away' },
      { type: 'stream_summary', index: 0, model_version: '2022-04', finish_reason: 'stop_sequence_reached' },
    );
    const plain = decode(text, withParameters({ stop_sequences: ['.'] }));
    expect(plain.result.results[0]).toMatchObject({ generated_text: ' away', stop_reason: 'stop_sequence' });
    const included = decode(text, withParameters({ stop_sequences: ['.'], include_stop_sequence: true }));
    expect(included.result.results[0]).toMatchObject({ generated_text: ' away.', stop_reason: 'stop_sequence' });
    const ambiguous = decode(text, withParameters({ stop_sequences: ['.', '!'], include_stop_sequence: true }));
    expect(ambiguous.result.results[0]!.generated_text).toBe(' away');
    expect(ambiguous.result.system?.warnings?.[0]?.id).toBe('include_stop_sequence');
  });
});

describe('echo in a stream', () => {
  test('the prompt, even split over chunks, becomes input_text; only the rest is generated text', () => {
    const text = data(
      { type: 'stream_chunk', index: 0, completion: 'An apple' },
      { type: 'stream_chunk', index: 0, completion: ' a day keeps' },
      { type: 'stream_chunk', index: 0, completion: ' the' },
      { type: 'stream_summary', index: 0, model_version: '2022-04', finish_reason: 'maximum_tokens' },
    );
    const { steps, result } = decode(text, withParameters({ return_options: { input_text: true } }));
    // Held back, but still a (textless) chunk carrying the raw event for --raw.
    expect(steps[0]).toMatchObject({
      type: 'chunk',
      chunk: { results: [{ generated_text: '' }] },
      wireBody: { completion: 'An apple' },
    });
    const released = steps[1] as Extract<StreamStep, { type: 'chunk' }>;
    expect(released.chunk.results[0]).toMatchObject({ generated_text: ' keeps', input_text: 'An apple a day' });
    expect(result.results[0]).toMatchObject({ input_text: 'An apple a day', generated_text: ' keeps the' });
  });

  test("the prompt's token data is left out of generated_tokens", () => {
    const text = data(
      {
        type: 'stream_chunk',
        index: 0,
        completion: 'An apple a day',
        completion_tokens: ['An', ' apple', ' a', ' day'],
        log_probs: [{}, { ' apple': -2 }, { ' a': -1 }, { ' day': -1 }],
      },
      {
        type: 'stream_chunk',
        index: 0,
        completion: ' keeps',
        completion_tokens: [' keeps'],
        log_probs: [{ ' keeps': -0.3 }],
      },
      { type: 'stream_summary', index: 0, model_version: '2022-04', finish_reason: 'maximum_tokens' },
    );
    const { result } = decode(text, withParameters({ return_options: { input_text: true, token_logprobs: true } }));
    expect(result.results[0]!.generated_tokens).toStrictEqual([{ text: ' keeps', logprob: -0.3 }]);
  });

  test('a completion that ends inside the prompt releases what was held', () => {
    const text = data(
      { type: 'stream_chunk', index: 0, completion: 'An apple' },
      { type: 'stream_summary', index: 0, model_version: '2022-04', finish_reason: 'maximum_tokens' },
    );
    const { result } = decode(text, withParameters({ return_options: { input_text: true } }));
    expect(result.results[0]).toMatchObject({ generated_text: 'An apple', input_text: 'An apple a day' });
  });
});

describe('errors and odd events', () => {
  const errorStep = (text: string) => decode(text).steps.at(-1) as StreamStep;

  test.each<[string, string, { message: string; code?: string }]>([
    [
      "the local server's in-stream error",
      data({ error: 'The model stopped', code: 'INTERNAL_ERROR' }),
      { message: 'The model stopped', code: 'INTERNAL_ERROR' },
    ],
    ['an error object', data({ error: { message: 'boom', code: 'X' } }), { message: 'boom', code: 'X' }],
    [
      'an errors array',
      data({ errors: [{ code: 'A', message: 'first' }, { message: 'second' }] }),
      { message: 'first; second', code: 'A' },
    ],
    ['a typed error', data({ type: 'error', message: 'typed' }), { message: 'typed' }],
    [
      'event: error with JSON',
      'event: error\ndata: {"error":"named","code":"QUEUE_FULL"}\n\n',
      { message: 'named', code: 'QUEUE_FULL' },
    ],
    ['event: error with plain text', 'event: error\ndata: upstream went away\n\n', { message: 'upstream went away' }],
    [
      'a data line that is not JSON',
      data('{"type":"stream_chunk","index":0,"completion":'),
      {
        message: 'malformed event from the service (not JSON): {"type":"stream_chunk","index":0,"completion":',
        code: 'malformed_event',
      },
    ],
  ])('%s → an error step', (_name, text, expected) => {
    const step = errorStep(text);
    expect(step.type).toBe('error');
    const { message, code } = step as Extract<StreamStep, { type: 'error' }>;
    expect({ message, ...(code ? { code } : {}) }).toStrictEqual(expected);
  });

  test('an error after some text: the text so far is kept for the partial output', () => {
    const { steps, result } = decode(
      data({ type: 'stream_chunk', index: 0, completion: ' partial' }, { error: 'gone', code: 'INTERNAL_ERROR' }),
    );
    expect(steps.map((s) => s.type)).toEqual(['chunk', 'error']);
    expect(result.results[0]!.generated_text).toBe(' partial');
  });

  test.each([
    ['an empty data line', 'data:\n\n'],
    ['an empty object', data({})],
  ])('%s is ignored', (_name, text) => {
    expect(decode(text).steps).toEqual([{ type: 'ignore' }]);
  });

  test.each([
    ['an unknown event type', data({ type: 'keep_alive' })],
    ['a JSON array', data([1, 2])],
  ])("%s is ignored as not the protocol's (an error only when the stream holds nothing else)", (_name, text) => {
    expect(decode(text).steps).toEqual([
      { type: 'ignore', unexpected: 'the event has no "type" of stream_chunk, stream_summary or completion_summary' },
    ]);
  });

  test('events named by `event:` instead of a type are understood', () => {
    const text =
      'event: stream_chunk\ndata: {"index":0,"completion":" hi"}\n\nevent: stream_summary\ndata: {"index":0,"finish_reason":"end_of_text"}\n\n';
    expect(decode(text).result.results[0]).toMatchObject({ generated_text: ' hi', stop_reason: 'eos_token' });
  });

  test('a whole CompletionResponse sent as one event becomes one chunk', () => {
    const body = {
      model_version: '2022-04',
      completions: [{ completion: ' all', finish_reason: 'end_of_text' }],
      num_tokens_prompt_total: 2,
      num_tokens_generated: 1,
    };
    const { steps, result } = decode(data(body));
    expect(steps[0]!.type).toBe('chunk');
    expect(result.results[0]).toMatchObject({
      generated_text: ' all',
      stop_reason: 'eos_token',
      generated_token_count: 1,
      input_token_count: 2,
    });
  });
});
