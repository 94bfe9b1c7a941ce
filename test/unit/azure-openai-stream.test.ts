import { describe, expect, test } from 'vitest';
import type { CanonicalRequest } from '../../src/contract/canonical.js';
import { StreamAggregator } from '../../src/generation/aggregate.js';
import type { SseEvent } from '../../src/contract/http.js';
import { azureOpenAiGenerate, openAiGenerate } from '../../profiles/openai/client/generate.js';
import type { StreamStep } from '../../src/contract/adapter.js';

const message = (data: unknown): SseEvent => ({
  event: 'message',
  data: typeof data === 'string' ? data : JSON.stringify(data),
});
const completion = (choices: unknown[], extra: Record<string, unknown> = {}) =>
  message({ id: 'cmpl-7Q', object: 'text_completion', created: 1686617332, model: 'm', choices, ...extra });
const choice = (text: string | undefined, index = 0, finish: string | null = null, logprobs: unknown = null) => ({
  ...(text === undefined ? {} : { text }),
  index,
  logprobs,
  finish_reason: finish,
});

function decodeAll(
  events: SseEvent[],
  request: CanonicalRequest = { input: 'Say hello' },
  profile = azureOpenAiGenerate,
): StreamStep[] {
  const decode = profile.decoder(request);
  return events.map(decode);
}

/** Folds the steps as the CLI does, up to the end or an error. */
function aggregate(steps: StreamStep[]) {
  const aggregator = new StreamAggregator();
  for (const step of steps) {
    if (step.type === 'end' || step.type === 'error') break;
    if (step.type === 'chunk') aggregator.add(step.chunk);
  }
  return aggregator.result();
}

describe('completions stream decoding', () => {
  test("the spec page's stream: deltas, a final stop, [DONE]", () => {
    const steps = decodeAll([completion([choice(' Hello')]), completion([choice('', 0, 'stop')]), message('[DONE]')]);
    expect(steps.map((s) => s.type)).toEqual(['chunk', 'chunk', 'end']);
    expect(steps[0]).toMatchObject({
      type: 'chunk',
      chunk: {
        model_id: 'm',
        created_at: '2023-06-13T00:48:52.000Z',
        results: [{ generated_text: ' Hello', stop_reason: 'not_finished' }],
      },
      wireBody: { id: 'cmpl-7Q', choices: [{ text: ' Hello' }] },
    });
    expect(aggregate(steps).results[0]).toMatchObject({ generated_text: ' Hello', stop_reason: 'eos_token' });
  });

  test.each([
    {
      what: 'content-filter annotations with "choices": []',
      event: message({
        id: '',
        object: '',
        created: 0,
        model: '',
        prompt_filter_results: [{ prompt_index: 0 }],
        choices: [],
      }),
    },
    { what: 'an empty data line', event: message('') },
  ])('$what are ignored', ({ event }) => {
    expect(decodeAll([event])).toEqual([{ type: 'ignore' }]);
  });

  test("a message without choices is ignored as not the protocol's (an error only when the stream holds nothing else)", () => {
    expect(decodeAll([message({ id: 'x', object: 'ping' })])).toEqual([
      { type: 'ignore', unexpected: 'the event has no "choices" array' },
    ]);
  });

  test('a chat-completions chunk is named as such', () => {
    const chat = message({
      id: 'c',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }],
    });
    expect(decodeAll([chat])).toEqual([
      {
        type: 'ignore',
        unexpected:
          'choices[0] has no "text" string but a "delta": the chat-completions shape, where textgen calls completions (/completions)',
      },
    ]);
  });

  test('a choice without text is an empty delta that may still carry the stop reason', () => {
    const [step] = decodeAll([completion([choice(undefined, 0, 'length')])]);
    expect(step).toMatchObject({
      type: 'chunk',
      chunk: { results: [{ generated_text: '', stop_reason: 'max_tokens' }] },
    });
  });

  test.each([
    {
      what: 'an {"error":…} payload inside the 200 stream',
      event: message({
        error: { code: 'InternalServerError', message: 'The server had an error while processing your request.' },
      }),
      expected: {
        type: 'error',
        code: 'InternalServerError',
        message: 'The server had an error while processing your request.',
      },
    },
    {
      what: 'an OpenAI-style error payload',
      event: message({ error: { message: 'overloaded', type: 'server_error', param: null, code: null } }),
      expected: { type: 'error', code: 'server_error', message: 'overloaded' },
    },
    {
      what: 'an event: error whose data is not JSON',
      event: { event: 'error', data: 'upstream reset' },
      expected: { type: 'error', message: 'upstream reset' },
    },
    {
      what: 'a data line that is not JSON',
      event: message('{"id":"cmpl-x","choices":[{"text":'),
      expected: {
        type: 'error',
        code: 'malformed_event',
        message: 'malformed event from the service (not JSON): {"id":"cmpl-x","choices":[{"text":',
      },
    },
  ])('$what is an error step', ({ event, expected }) => {
    expect(decodeAll([event])[0]).toMatchObject(expected);
  });

  test('text that arrived before an in-stream error is kept', () => {
    const steps = decodeAll([
      completion([choice(' Partial')]),
      message({ error: { code: 'x', message: 'gone' } }),
      completion([choice(' never')]),
    ]);
    expect(steps.map((s) => s.type)).toEqual(['chunk', 'error', 'chunk']);
    expect(aggregate(steps).results[0]!.generated_text).toBe(' Partial');
  });

  test('several choices interleave; each delta lands at its index', () => {
    const steps = decodeAll(
      [
        completion([choice(' A', 0)]),
        completion([choice(' B', 1)]),
        completion([choice(' a', 0, 'stop')]),
        completion([choice(' b', 1, 'length')]),
        message('[DONE]'),
      ],
      { input: 'x', n: 2 },
    );
    expect(steps[1]).toMatchObject({
      chunk: { results: [{ generated_text: '', stop_reason: 'not_finished' }, { generated_text: ' B' }] },
    });
    expect(aggregate(steps).results).toEqual([
      expect.objectContaining({ generated_text: ' A a', stop_reason: 'eos_token' }),
      expect.objectContaining({ generated_text: ' B b', stop_reason: 'max_tokens' }),
    ]);
  });

  test('echo: the prompt, even split over messages, becomes input_text once; its tokens are not counted', () => {
    const request: CanonicalRequest = {
      input: 'Hi there',
      parameters: { return_options: { input_text: true, generated_tokens: true, token_logprobs: true } },
    };
    const lp = (tokens: string[], logprobs: (number | null)[]) => ({
      tokens,
      token_logprobs: logprobs,
      top_logprobs: logprobs.map(() => ({})),
      text_offset: tokens.map(() => 0),
    });
    const steps = decodeAll(
      [
        completion([choice('Hi', 0, null, lp(['Hi'], [null]))]),
        completion([choice(' there,', 0, null, lp([' there', ','], [-1, -0.5]))]),
        completion([choice(' you', 0, null, lp([' you'], [-2]))]),
        completion([choice('', 0, 'stop', lp([], []))]),
        message('[DONE]'),
      ],
      request,
    );
    expect(steps[0]).toMatchObject({ chunk: { results: [{ generated_text: '' }] } });
    expect(
      (steps[0] as { chunk: { results: { input_text?: string }[] } }).chunk.results[0]!.input_text,
    ).toBeUndefined();
    expect(steps[1]).toMatchObject({
      chunk: {
        results: [
          {
            generated_text: ',',
            input_text: 'Hi there',
            generated_token_count: 1,
            generated_tokens: [{ text: ',', logprob: -0.5 }],
          },
        ],
      },
    });
    expect(aggregate(steps).results[0]).toEqual({
      generated_text: ', you',
      input_text: 'Hi there',
      stop_reason: 'eos_token',
      generated_token_count: 2,
      input_token_count: 0,
      generated_tokens: [
        { text: ',', logprob: -0.5 },
        { text: ' you', logprob: -2 },
      ],
    });
  });

  test('a last usage message with "choices": [] gives the token counts', () => {
    const steps = decodeAll([
      completion([choice(' Hi', 0, 'stop')]),
      completion([], { usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }),
      message('[DONE]'),
    ]);
    expect(aggregate(steps).results[0]).toMatchObject({
      generated_text: ' Hi',
      generated_token_count: 1,
      input_token_count: 3,
    });
  });

  test('content_filter ends the choice with that stop reason and a warning', () => {
    const steps = decodeAll([
      completion([choice(' The')]),
      completion([choice('', 0, 'content_filter')]),
      message('[DONE]'),
    ]);
    expect(steps[1]).toMatchObject({
      chunk: { results: [{ stop_reason: 'content_filter' }], system: { warnings: [{ id: 'content_filter' }] } },
    });
    expect(aggregate(steps)).toMatchObject({
      results: [{ stop_reason: 'content_filter' }],
      system: { warnings: [{ id: 'content_filter' }] },
    });
  });

  test('the include_stop_sequence warning rides on the first chunk only', () => {
    const steps = decodeAll([completion([choice(' a')]), completion([choice(' b', 0, 'stop')])], {
      input: 'x',
      parameters: { stop_sequences: ['\n'], include_stop_sequence: true },
    });
    expect(steps[0]).toMatchObject({ chunk: { system: { warnings: [{ id: 'include_stop_sequence' }] } } });
    expect((steps[1] as { chunk: { system?: unknown } }).chunk.system).toBeUndefined();
    expect(aggregate(steps).results[0]!.stop_reason).toBe('stop_sequence');
  });

  test('the openai kind decodes the same stream', () => {
    const steps = decodeAll(
      [completion([choice(' Hi', 0, 'stop')]), message('[DONE]')],
      { input: 'x' },
      openAiGenerate,
    );
    expect(aggregate(steps).results[0]).toMatchObject({ generated_text: ' Hi', stop_reason: 'eos_token' });
  });
});
