import { describe, expect, test } from 'vitest';
import type { CanonicalParameters, CanonicalRequest } from '../../src/contract/canonical.js';
import { alephAlphaGenerate } from '../../profiles/aleph-alpha/client/generate.js';
import { UnexpectedAnswer } from '../../src/contract/errors.js';

const parse = (body: unknown, request?: CanonicalRequest) =>
  alephAlphaGenerate.parse(body, request ?? { input: 'An apple a day' });

const answer = (completion: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  model_version: '2022-04',
  completions: [completion],
  num_tokens_prompt_total: 4,
  num_tokens_generated: 5,
  ...extra,
});

const withParameters = (parameters: CanonicalParameters): CanonicalRequest => ({ input: 'An apple a day', parameters });

describe('CompletionResponse → canonical result', () => {
  test("the spec page's example: text, stop reason, counts, token data, model version and time", () => {
    const body = {
      model_version: '2022-04',
      completions: [
        {
          completion: ' keeps the doctor away,',
          finish_reason: 'maximum_tokens',
          log_probs: [{ ' keeps': -0.3 }],
          completion_tokens: [' keeps'],
        },
      ],
      num_tokens_prompt_total: 4,
      num_tokens_generated: 5,
    };
    const result = parse(body, withParameters({ return_options: { token_logprobs: true } }));
    expect(result.model_version).toBe('2022-04');
    expect(new Date(result.created_at!).toISOString()).toBe(result.created_at);
    expect(result.results).toStrictEqual([
      {
        generated_text: ' keeps the doctor away,',
        stop_reason: 'max_tokens',
        generated_tokens: [{ text: ' keeps', logprob: -0.3 }],
        generated_token_count: 5,
        input_token_count: 4,
      },
    ]);
    expect(result.system).toBeUndefined();
  });

  test('model_id is the model the request was sent to', () => {
    const body = answer({ completion: 'y', finish_reason: 'end_of_text' });
    expect(alephAlphaGenerate.parse(body, { input: 'x' }, { model: 'luminous-supreme', stream: false }).model_id).toBe(
      'luminous-supreme',
    );
    expect(
      alephAlphaGenerate.parse(body, { input: 'x' }, { deployment: 'luminous-base', stream: false }).model_id,
    ).toBe('luminous-base');
    expect(parse(body, { input: 'x' }).model_id).toBeUndefined();
  });

  test('unknown fields are ignored', () => {
    const result = parse(
      answer(
        { completion: 'y', finish_reason: 'end_of_text', future: 1 },
        { optimized_prompt: [{ type: 'text', data: 'x' }], extra: true },
      ),
    );
    expect(result.results[0]!.generated_text).toBe('y');
  });

  test.each<[string, unknown, string[] | undefined, string, string]>([
    ['maximum_tokens', 'maximum_tokens', undefined, ' text', 'max_tokens'],
    ['end_of_text', 'end_of_text', undefined, ' text', 'eos_token'],
    ['stop_sequence_reached', 'stop_sequence_reached', ['\n'], ' text', 'stop_sequence'],
    ['the stop sequence itself', '###', ['###'], ' text', 'stop_sequence'],
    ['an unknown value when the text ended at a requested stop', 'whatever', ['.'], ' text.', 'stop_sequence'],
    ['an unknown value otherwise is kept', 'whatever', ['.'], ' text', 'whatever'],
    ['an unknown value without stop sequences is kept', 'content_filter', undefined, ' text', 'content_filter'],
    ['"stop" without a stop sequence at the end', 'stop', undefined, ' text', 'eos_token'],
    ['no finish_reason', null, undefined, ' text', 'not_finished'],
  ])('finish_reason %s → its watsonx stop reason', (_name, finishReason, stops, completion, expected) => {
    const request = withParameters(stops ? { stop_sequences: stops } : {});
    expect(parse(answer({ completion, finish_reason: finishReason }), request).results[0]!.stop_reason).toBe(expected);
  });

  test("several completions: one result each; the call's token counts (summed over n) go on the first", () => {
    const body = {
      model_version: '2022-04',
      completions: [
        { completion: ' one', finish_reason: 'maximum_tokens' },
        { completion: ' two', finish_reason: 'end_of_text' },
      ],
      num_tokens_prompt_total: 8,
      num_tokens_generated: 3,
    };
    const result = parse(body, { input: 'An apple a day', n: 2 });
    expect(result.results).toStrictEqual([
      { generated_text: ' one', stop_reason: 'max_tokens', generated_token_count: 3, input_token_count: 8 },
      { generated_text: ' two', stop_reason: 'eos_token' },
    ]);
  });

  test.each([
    ['no completions array', { model_version: 'x' }, /no "completions" array/],
    ['an empty completions array', { model_version: 'x', completions: [] }, /no completions/],
    [
      'a completion without text',
      { model_version: 'x', completions: [{ finish_reason: 'end_of_text' }] },
      /completion 0 has no "completion" string/,
    ],
    ['not an object', 'text', /no "completions" array/],
  ])('%s is a malformed answer', (_name, body, message) => {
    expect(() => parse(body)).toThrow(UnexpectedAnswer);
    expect(() => parse(body)).toThrow(message);
  });
});

describe('echo and token data', () => {
  const echoed = {
    completion: 'An apple a day keeps the',
    finish_reason: 'maximum_tokens',
    completion_tokens: ['An', ' apple', ' a', ' day', ' keeps', ' the'],
    log_probs: [
      {},
      { ' apple': -2 },
      { ' a': -1 },
      { ' day': -0.5 },
      { ' keeps': -0.3, ' is': -1.2, ' makes': -2.5 },
      { ' the': -0.1, ' a': -3 },
    ],
  };

  test('with echo the prompt becomes input_text and its tokens (log_probs starting with {}) are left out', () => {
    const request = withParameters({ return_options: { input_text: true, token_logprobs: true } });
    const item = parse(answer(echoed), request).results[0]!;
    expect(item.input_text).toBe('An apple a day');
    expect(item.generated_text).toBe(' keeps the');
    expect(item.generated_tokens).toStrictEqual([
      { text: ' keeps', logprob: -0.3 },
      { text: ' the', logprob: -0.1 },
    ]);
  });

  test('top_n_tokens adds the best alternatives, most likely first', () => {
    const request = withParameters({ return_options: { input_text: true, top_n_tokens: 2 } });
    const item = parse(answer(echoed), request).results[0]!;
    expect(item.generated_tokens![0]).toStrictEqual({
      text: ' keeps',
      logprob: -0.3,
      top_tokens: [
        { text: ' keeps', logprob: -0.3 },
        { text: ' is', logprob: -1.2 },
      ],
    });
  });

  test('a prompt whose trailing whitespace the service trimmed is still split off', () => {
    const item = parse(answer({ completion: 'Hello, world', finish_reason: 'end_of_text' }), {
      input: 'Hello  ',
      parameters: { return_options: { input_text: true } },
    }).results[0]!;
    expect(item).toMatchObject({ input_text: 'Hello', generated_text: ', world' });
  });

  test('an echo that does not start with the prompt leaves the text whole', () => {
    const item = parse(
      answer({ completion: 'Something else', finish_reason: 'end_of_text' }),
      withParameters({ return_options: { input_text: true } }),
    ).results[0]!;
    expect(item).toMatchObject({ input_text: 'An apple a day', generated_text: 'Something else' });
  });

  test('tokens without log probabilities give token texts only; null log probabilities are left out', () => {
    const item = parse(
      answer({
        completion: ' a b',
        finish_reason: 'end_of_text',
        completion_tokens: [' a', ' b'],
        log_probs: [{ ' a': null }, { ' b': -1 }],
      }),
    ).results[0]!;
    expect(item.generated_tokens).toStrictEqual([{ text: ' a' }, { text: ' b', logprob: -1 }]);
  });

  test('log_probs without completion_tokens: a one-key dictionary names its token', () => {
    const item = parse(answer({ completion: ' a', finish_reason: 'end_of_text', log_probs: [{ ' a': -0.5 }] }))
      .results[0]!;
    expect(item.generated_tokens).toStrictEqual([{ text: ' a', logprob: -0.5 }]);
  });
});

describe('include_stop_sequence (AA leaves the stop sequence out of the completion)', () => {
  const stopped = (completion: string, finishReason = 'stop_sequence_reached') =>
    answer({ completion, finish_reason: finishReason });

  test.each<[string, CanonicalParameters, string, string]>([
    [
      'not given: the text as the service sent it',
      { stop_sequences: ['.'] },
      ' keeps the doctor away',
      ' keeps the doctor away',
    ],
    [
      'true with one stop sequence: added back',
      { stop_sequences: ['.'], include_stop_sequence: true },
      ' keeps the doctor away',
      ' keeps the doctor away.',
    ],
    [
      'true when the text already ends with it: unchanged',
      { stop_sequences: ['.'], include_stop_sequence: true },
      ' away.',
      ' away.',
    ],
    [
      'false when a server kept it: cut off',
      { stop_sequences: ['.'], include_stop_sequence: false },
      ' away.',
      ' away',
    ],
    [
      'false when it was left out: unchanged',
      { stop_sequences: ['.'], include_stop_sequence: false },
      ' away',
      ' away',
    ],
  ])('%s', (_name, parameters, completion, expected) => {
    const result = parse(stopped(completion), withParameters(parameters));
    expect(result.results[0]!).toMatchObject({ generated_text: expected, stop_reason: 'stop_sequence' });
    expect(result.system).toBeUndefined();
  });

  test('true with several stop sequences, finish_reason naming one: that one is added', () => {
    const result = parse(
      stopped(' away', '!'),
      withParameters({ stop_sequences: ['.', '!'], include_stop_sequence: true }),
    );
    expect(result.results[0]!.generated_text).toBe(' away!');
  });

  test('true with several stop sequences and no way to tell which: a warning, the text unchanged', () => {
    const result = parse(stopped(' away'), withParameters({ stop_sequences: ['.', '!'], include_stop_sequence: true }));
    expect(result.results[0]!.generated_text).toBe(' away');
    expect(result.system?.warnings).toStrictEqual([
      { id: 'include_stop_sequence', message: expect.stringContaining('completion 0') },
    ]);
  });

  test('a completion that did not stop at a stop sequence is never changed', () => {
    const result = parse(
      answer({ completion: ' away', finish_reason: 'maximum_tokens' }),
      withParameters({ stop_sequences: ['.'], include_stop_sequence: true }),
    );
    expect(result.results[0]!.generated_text).toBe(' away');
  });
});

describe('error answers', () => {
  test.each<[string, number, string, Record<string, string>, { code?: string; message: string; traceId?: string }]>([
    [
      "the service's own shape, trace id from x-request-id",
      503,
      '{"error":"Sorry we had a problem: the model is busy","code":"QUEUE_FULL"}',
      { 'x-request-id': 'req-1' },
      { code: 'QUEUE_FULL', message: 'Sorry we had a problem: the model is busy', traceId: 'req-1' },
    ],
    [
      'unknown model, trace id from x-trace-id',
      404,
      '{"error":"Unknown model luminous-huge","code":"UNKNOWN_MODEL"}',
      { 'x-trace-id': 'tr-9' },
      { code: 'UNKNOWN_MODEL', message: 'Unknown model luminous-huge', traceId: 'tr-9' },
    ],
    [
      'an error object',
      400,
      '{"error":{"message":"bad field","code":"BAD_REQUEST"}}',
      {},
      { code: 'BAD_REQUEST', message: 'bad field' },
    ],
    ['a message field', 500, '{"message":"internal"}', {}, { message: 'internal' }],
    ['a FastAPI-style detail', 422, '{"detail":"prompt is required"}', {}, { message: 'prompt is required' }],
    [
      "a proxy's HTML page: its words",
      502,
      '<html><body>502 Bad Gateway</body></html>\n',
      {},
      { message: '502 Bad Gateway' },
    ],
    [
      'plain text: its first line',
      502,
      'upstream connect error\nreset reason: overflow\n',
      {},
      { message: 'upstream connect error' },
    ],
    ['an empty body', 429, '', {}, { message: 'Too Many Requests' }],
    ['out of credits, empty', 402, '', {}, { message: 'Payment Required (out of credits)' }],
  ])('%s', (_name, status, text, headers, expected) => {
    const details = alephAlphaGenerate.parseError(status, text, headers);
    expect(details).toStrictEqual({
      provider: 'aleph-alpha',
      status,
      code: expected.code,
      message: expected.message,
      traceId: expected.traceId,
    });
  });

  test('a long plain-text body is cut', () => {
    const details = alephAlphaGenerate.parseError(503, 'x'.repeat(1000), {});
    expect(details.message).toHaveLength(201);
    expect(details.message.endsWith('…')).toBe(true);
  });
});
