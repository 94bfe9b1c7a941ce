import { describe, expect, test } from 'vitest';
import type { CanonicalRequest } from '../../src/contract/canonical.js';
import { ApiError } from '../../src/contract/errors.js';
import { openInferenceGenerate } from '../../profiles/open-inference/client/generate.js';

const parse = (body: unknown, request: CanonicalRequest = { input: 'Hello' }) =>
  openInferenceGenerate.parse(body, request);
const token = (id: number, text: string, logprob: number, extra: Record<string, unknown> = {}) => ({
  id,
  text,
  logprob,
  special: false,
  ...extra,
});

describe('answer → canonical result', () => {
  test('a full answer with details: text, model, stop reason, counts, tokens as return_options asked', () => {
    const result = parse(
      {
        text_output: ' world again',
        model_name: 'llama',
        model_version: '3',
        details: { finish_reason: 'length', logprobs: [token(1917, ' world', -0.5), token(1578, ' again', -1.25)] },
      },
      {
        input: 'Hello',
        parameters: { max_new_tokens: 2, return_options: { generated_tokens: true, token_logprobs: true } },
      },
    );
    expect(result).toEqual({
      model_id: 'llama',
      model_version: '3',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      results: [
        {
          generated_text: ' world again',
          stop_reason: 'max_tokens',
          generated_token_count: 2,
          input_token_count: 0,
          generated_tokens: [
            { text: ' world', logprob: -0.5 },
            { text: ' again', logprob: -1.25 },
          ],
        },
      ],
    });
  });

  test.each([
    ['length', 'max_tokens'],
    ['eos_token', 'eos_token'],
    ['stop_sequence', 'stop_sequence'],
    ['end_of_text', 'eos_token'],
    ['max_tokens', 'max_tokens'],
    ['content_filter', 'content_filter'],
  ])('finish_reason %s → stop_reason %s', (finish, stop) => {
    expect(
      parse({ text_output: 'x', model_name: 'm', details: { finish_reason: finish, logprobs: [] } }).results[0]!
        .stop_reason,
    ).toBe(stop);
  });

  test('finish_reason stop is a stop sequence when the text ends with one that was asked for, else the end of text', () => {
    const request: CanonicalRequest = { input: 'Q', parameters: { stop_sequences: ['END'] } };
    expect(
      parse({ text_output: 'A END', model_name: 'm', details: { finish_reason: 'stop' } }, request).results[0]!
        .stop_reason,
    ).toBe('stop_sequence');
    expect(
      parse({ text_output: 'A.', model_name: 'm', details: { finish_reason: 'stop' } }, request).results[0]!
        .stop_reason,
    ).toBe('eos_token');
  });

  test('token data stays out of the result unless return_options asked for it', () => {
    const result = parse({
      text_output: ' a',
      model_name: 'm',
      details: { finish_reason: 'eos_token', logprobs: [token(1, ' a', -0.1)] },
    });
    expect(result.results[0]).toEqual({
      generated_text: ' a',
      stop_reason: 'eos_token',
      generated_token_count: 1,
      input_token_count: 0,
    });
  });

  test('ranks and top tokens come through when asked for and sent', () => {
    const result = parse(
      {
        text_output: ' a',
        model_name: 'm',
        details: {
          finish_reason: 'length',
          logprobs: [token(1, ' a', -0.1, { rank: 1 })],
          top_tokens: [[token(1, ' a', -0.1), token(2, ' b', -2.5), token(3, ' c', -3)]],
        },
      },
      { input: 'Q', parameters: { return_options: { generated_tokens: true, token_ranks: true, top_n_tokens: 2 } } },
    );
    expect(result.results[0]!.generated_tokens).toEqual([
      {
        text: ' a',
        rank: 1,
        top_tokens: [
          { text: ' a', logprob: -0.1 },
          { text: ' b', logprob: -2.5 },
        ],
      },
    ]);
  });

  test('text_output as an array of strings is joined', () => {
    expect(
      parse({ text_output: ['Hel', 'lo', ' there'], model_name: 'm' }, { input: 'Q' }).results[0]!.generated_text,
    ).toBe('Hello there');
  });

  test('a prompt in front of the output (vLLM without exclude_input_in_output) is removed', () => {
    const result = parse(
      {
        text_output: 'Hello world',
        model_name: 'm',
        details: { finish_reason: 'length', logprobs: [token(1, ' world', -1)] },
      },
      { input: 'Hello' },
    );
    expect(result.results[0]!.generated_text).toBe(' world');
  });

  test('the prompt stays when the tokens prove the model generated it', () => {
    const result = parse(
      {
        text_output: 'Hello Hello',
        model_name: 'm',
        details: { finish_reason: 'length', logprobs: [token(1, 'Hello', -1), token(2, ' Hello', -1)] },
      },
      { input: 'Hello' },
    );
    expect(result.results[0]!.generated_text).toBe('Hello Hello');
  });

  test.each([
    [
      'TGI generated_tokens',
      { text_output: 'a b', model_name: 'm', details: { finish_reason: 'length', logprobs: [], generated_tokens: 9 } },
      9,
      0,
    ],
    [
      'vLLM num_output_tokens and num_input_tokens',
      { text_output: 'a b', model_name: 'm', num_input_tokens: 4, num_output_tokens: 3 },
      3,
      4,
    ],
    [
      'TGI prefill',
      {
        text_output: 'a',
        model_name: 'm',
        details: {
          finish_reason: 'length',
          logprobs: [token(1, 'a', -1)],
          prefill: [
            { id: 5, text: 'Q' },
            { id: 6, text: '?' },
          ],
        },
      },
      1,
      2,
    ],
    ['nothing at all: no generated count, input count 0', { text_output: 'a b', model_name: 'm' }, undefined, 0],
  ])('token counts from %s', (_name, body, generated, input) => {
    const item = parse(body, { input: 'Q' }).results[0]!;
    expect(item.generated_token_count).toBe(generated);
    expect(item.input_token_count).toBe(input);
  });

  test.each([
    ['the text ends with a requested stop sequence', 'a END', 5, 'stop_sequence'],
    ['the server counted max_new_tokens', 'a b c', 3, 'max_tokens'],
    ['nothing says otherwise', 'a b', undefined, 'eos_token'],
  ])('without details the stop reason is inferred: %s', (_name, text, count, stop) => {
    const body: Record<string, unknown> = { text_output: text, model_name: 'm' };
    if (count !== undefined) body.num_output_tokens = count;
    expect(
      parse(body, { input: 'Q', parameters: { max_new_tokens: 3, stop_sequences: ['END'] } }).results[0]!.stop_reason,
    ).toBe(stop);
  });

  test('seed and moderations in details are kept', () => {
    const moderations = { hap: [{ score: 0.9, input: true, position: { start: 0, end: 5 }, entity: 'has_HAP' }] };
    const item = parse({
      text_output: 'a',
      model_name: 'm',
      details: { finish_reason: 'eos_token', logprobs: [], seed: 42, moderations },
    }).results[0]!;
    expect(item.seed).toBe(42);
    expect(item.moderations).toEqual(moderations);
  });

  test.each([
    ['not an object', ['a'], /not a JSON object/],
    ['no text_output', { model_name: 'm' }, /no "text_output" string/],
    ['text_output of numbers', { text_output: [1, 2], model_name: 'm' }, /no "text_output" string/],
    ['an error with status 200', { error: 'boom' }, /the answer is an error: boom/],
  ])('a malformed answer (%s) is an error', (_name, body, message) => {
    expect(() => parse(body)).toThrow(message);
  });
});

describe('error answers', () => {
  test.each([
    [
      'the spec shape, with the request id as trace',
      422,
      '{"error":"Input validation error: `temperature` must be non-negative"}',
      { 'x-request-id': 'req-1' },
      { code: undefined, message: 'Input validation error: `temperature` must be non-negative', traceId: 'req-1' },
    ],
    [
      'TGI error_type as the code',
      429,
      '{"error":"Model is overloaded","error_type":"overloaded"}',
      {},
      { code: 'overloaded', message: 'Model is overloaded', traceId: undefined },
    ],
    [
      'Triton with its own request id header',
      400,
      '{"error":"Unable to find model \'x\'"}',
      { 'triton-request-id': 't-9' },
      { message: "Unable to find model 'x'", traceId: 't-9' },
    ],
    ['Triton 501', 501, '{"error":"generate is not supported"}', {}, { message: 'generate is not supported' }],
    [
      'a proxy error object',
      502,
      '{"error":{"message":"upstream failed","code":"bad_gateway"}}',
      {},
      { code: 'bad_gateway', message: 'upstream failed' },
    ],
    [
      'FastAPI detail list',
      422,
      '{"detail":[{"loc":["body","text_input"],"msg":"field required"}]}',
      {},
      { message: 'field required' },
    ],
    ['FastAPI detail string', 404, '{"detail":"Not Found"}', {}, { message: 'Not Found' }],
    [
      'an HTML page from a proxy',
      503,
      '<html><body>Service\n Unavailable</body></html>',
      {},
      { message: 'Service Unavailable' },
    ],
    ['an empty body', 504, '', {}, { message: 'Gateway Timeout' }],
  ])('%s', (_name, status, body, headers, expected) => {
    const details = openInferenceGenerate.parseError(status, body, headers);
    expect(details).toMatchObject({ provider: 'open-inference', status, ...expected });
  });

  test('the CLI message names provider, status, code, message and trace', () => {
    const details = openInferenceGenerate.parseError(429, '{"error":"Model is overloaded","error_type":"overloaded"}', {
      'x-request-id': 'abc',
    });
    expect(new ApiError(details).message).toBe(
      'open-inference returned HTTP 429 overloaded: Model is overloaded (trace abc)',
    );
  });
});
