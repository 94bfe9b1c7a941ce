import { describe, expect, test } from 'vitest';
import type { CanonicalRequest } from '../../src/contract/canonical.js';
import { formatApiMessage } from '../../src/contract/errors.js';
import { azureOpenAiGenerate, openAiGenerate } from '../../profiles/openai/client/generate.js';

/** The spec page's answer. */
const specAnswer = {
  id: 'cmpl-4509KAos68kxOqpE2uYGw81j6m7uo',
  object: 'text_completion',
  created: 1637097562,
  model: 'davinci',
  choices: [
    { text: 'The price for bubblegum decreased on thursday.', index: 0, logprobs: null, finish_reason: 'stop' },
  ],
  usage: { completion_tokens: 20, prompt_tokens: 6, total_tokens: 26 },
};

const parse = (body: unknown, request: CanonicalRequest = { input: 'Negate: the price increased.' }) =>
  azureOpenAiGenerate.parse(body, request);

describe('completion answer → canonical result', () => {
  test('the spec page answer', () => {
    expect(parse(specAnswer)).toEqual({
      model_id: 'davinci',
      created_at: '2021-11-16T21:19:22.000Z',
      results: [
        {
          generated_text: 'The price for bubblegum decreased on thursday.',
          stop_reason: 'eos_token',
          generated_token_count: 20,
          input_token_count: 6,
        },
      ],
    });
  });

  test.each([
    { finish: 'stop', stops: undefined, expected: 'eos_token' },
    { finish: 'stop', stops: ['\n'], expected: 'stop_sequence' },
    { finish: 'length', stops: undefined, expected: 'max_tokens' },
    { finish: 'content_filter', stops: undefined, expected: 'content_filter' },
    { finish: null, stops: undefined, expected: 'not_finished' },
    { finish: 'tool_calls', stops: undefined, expected: 'tool_calls' },
  ])('finish_reason $finish with stop sequences $stops → $expected', ({ finish, stops, expected }) => {
    const body = { ...specAnswer, choices: [{ ...specAnswer.choices[0], finish_reason: finish }] };
    const result = parse(body, { input: 'x', parameters: stops ? { stop_sequences: stops } : {} });
    expect(result.results[0]!.stop_reason).toBe(expected);
  });

  test('content_filter adds a warning naming the choice', () => {
    const body = {
      ...specAnswer,
      choices: [{ text: 'The', index: 0, logprobs: null, finish_reason: 'content_filter' }],
    };
    expect(parse(body).system?.warnings).toEqual([
      {
        id: 'content_filter',
        message: expect.stringContaining("Azure OpenAI's content filter cut the output of choice 0 short"),
      },
    ]);
    expect(openAiGenerate.parse(body, { input: 'x' }).system?.warnings?.[0]?.message).toMatch(
      /^the service's content filter/,
    );
  });

  test('include_stop_sequence true with stop sequences is answered with a warning: the service always strips them', () => {
    const result = parse(specAnswer, {
      input: 'x',
      parameters: { stop_sequences: ['.'], include_stop_sequence: true },
    });
    expect(result.system?.warnings).toEqual([
      {
        id: 'include_stop_sequence',
        message: 'azure-openai never includes the stop sequence in the text: include_stop_sequence true has no effect',
      },
    ]);
    expect(
      parse(specAnswer, { input: 'x', parameters: { stop_sequences: ['.'], include_stop_sequence: false } }).system,
    ).toBeUndefined();
  });

  test('echo moves the prompt to input_text; token data becomes generated_tokens without the prompt tokens', () => {
    const request: CanonicalRequest = {
      input: 'Hi there',
      parameters: {
        return_options: { input_text: true, generated_tokens: true, token_logprobs: true, top_n_tokens: 2 },
      },
    };
    const body = {
      ...specAnswer,
      choices: [
        {
          text: 'Hi there, friend.',
          index: 0,
          finish_reason: 'length',
          logprobs: {
            tokens: ['Hi', ' there', ',', ' friend', '.'],
            token_logprobs: [null, -2.5, -0.1, -1.25, -0.5],
            top_logprobs: [
              null,
              { ' there': -2.5 },
              { ',': -0.1, '!': -2.4, '?': -3 },
              { ' friend': -1.25, ' pal': -1.5 },
              { '.': -0.5 },
            ],
            text_offset: [0, 2, 8, 9, 16],
          },
        },
      ],
      usage: { completion_tokens: 3, prompt_tokens: 2, total_tokens: 5 },
    };
    expect(parse(body, request).results[0]).toEqual({
      generated_text: ', friend.',
      input_text: 'Hi there',
      stop_reason: 'max_tokens',
      generated_token_count: 3,
      input_token_count: 2,
      generated_tokens: [
        {
          text: ',',
          logprob: -0.1,
          top_tokens: [
            { text: ',', logprob: -0.1 },
            { text: '!', logprob: -2.4 },
          ],
        },
        {
          text: ' friend',
          logprob: -1.25,
          top_tokens: [
            { text: ' friend', logprob: -1.25 },
            { text: ' pal', logprob: -1.5 },
          ],
        },
        { text: '.', logprob: -0.5, top_tokens: [{ text: '.', logprob: -0.5 }] },
      ],
    });
  });

  test('without usage, echoed prompt tokens are found from the token texts', () => {
    const request: CanonicalRequest = {
      input: 'Hi there',
      parameters: { return_options: { input_text: true, generated_tokens: true } },
    };
    const body = {
      choices: [
        {
          text: 'Hi there!',
          index: 0,
          finish_reason: 'stop',
          logprobs: { tokens: ['Hi', ' there', '!'], token_logprobs: [null, -1, -2], top_logprobs: [null, {}, {}] },
        },
      ],
    };
    expect(parse(body, request).results[0]).toEqual({
      generated_text: '!',
      input_text: 'Hi there',
      stop_reason: 'eos_token',
      generated_token_count: 1,
      generated_tokens: [{ text: '!' }],
    });
  });

  test('generated_tokens only: token texts, no logprobs', () => {
    const body = {
      ...specAnswer,
      choices: [
        {
          text: ' a b',
          index: 0,
          finish_reason: 'stop',
          logprobs: { tokens: [' a', ' b'], token_logprobs: [-1, -2], top_logprobs: [{}, {}], text_offset: [0, 2] },
        },
      ],
    };
    const result = parse(body, { input: 'x', parameters: { return_options: { generated_tokens: true } } });
    expect(result.results[0]!.generated_tokens).toEqual([{ text: ' a' }, { text: ' b' }]);
  });

  test('several choices come back in index order; counts are per choice from token data, else the total goes on the first', () => {
    const withoutTokens = {
      ...specAnswer,
      choices: [
        { text: ' two', index: 1, logprobs: null, finish_reason: 'length' },
        { text: ' one', index: 0, logprobs: null, finish_reason: 'stop' },
      ],
      usage: { completion_tokens: 7, prompt_tokens: 3, total_tokens: 10 },
    };
    const plain = parse(withoutTokens, { input: 'x', n: 2 });
    expect(plain.results).toEqual([
      { generated_text: ' one', stop_reason: 'eos_token', generated_token_count: 7, input_token_count: 3 },
      { generated_text: ' two', stop_reason: 'max_tokens', input_token_count: 3 },
    ]);
    const tokens = (list: string[]) => ({
      tokens: list,
      token_logprobs: list.map(() => -1),
      top_logprobs: list.map(() => ({})),
      text_offset: list.map(() => 0),
    });
    const withTokens = {
      ...withoutTokens,
      choices: [
        { text: ' one two', index: 0, logprobs: tokens([' one', ' two']), finish_reason: 'stop' },
        { text: ' three', index: 1, logprobs: tokens([' three']), finish_reason: 'stop' },
      ],
    };
    const counted = parse(withTokens, { input: 'x', n: 2, parameters: { return_options: { token_logprobs: true } } });
    expect(counted.results.map((r) => r.generated_token_count)).toEqual([2, 1]);
  });

  test('an answer without choices is refused', () => {
    expect(() => parse({ error: 'nope' })).toThrow('the answer has no "choices" array');
    expect(() => parse('text')).toThrow();
  });
});

describe('error answers → ApiError fields', () => {
  const contentFilter = JSON.stringify({
    error: {
      message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
      type: null,
      param: 'prompt',
      code: 'content_filter',
      status: 400,
      innererror: {
        code: 'ResponsibleAIPolicyViolation',
        content_filter_result: {
          hate: { filtered: false, severity: 'safe' },
          self_harm: { filtered: false, severity: 'safe' },
          sexual: { filtered: false, severity: 'safe' },
          violence: { filtered: true, severity: 'medium' },
        },
      },
    },
  });

  test.each<{ what: string; status: number; body: string; headers: Record<string, string>; message: string }>([
    {
      what: 'a prompt refused by the content filter reads clearly, with the inner error and the apim-request-id',
      status: 400,
      body: contentFilter,
      headers: { 'apim-request-id': 'a1b2-c3' },
      message:
        "azure-openai returned HTTP 400 content_filter: The response was filtered due to the prompt triggering Azure OpenAI's content management policy. (inner error ResponsibleAIPolicyViolation; filtered: violence (medium)) (apim-request-id a1b2-c3)",
    },
    {
      what: 'inner_error spelled with an underscore',
      status: 400,
      body: JSON.stringify({
        error: {
          code: 'content_filter',
          message: 'Filtered.',
          inner_error: {
            code: 'ResponsibleAIPolicyViolation',
            content_filter_results: { hate: { filtered: true, severity: 'high' } },
          },
        },
      }),
      headers: {},
      message:
        'azure-openai returned HTTP 400 content_filter: Filtered. (inner error ResponsibleAIPolicyViolation; filtered: hate (high))',
    },
    {
      what: 'an OpenAI-style error with code null uses its type; the param it names is not repeated',
      status: 400,
      body: JSON.stringify({
        error: {
          message: "6 is greater than the maximum of 5 - 'logprobs'",
          type: 'invalid_request_error',
          param: 'logprobs',
          code: null,
        },
      }),
      headers: { 'x-request-id': 'req_123' },
      message:
        "azure-openai returned HTTP 400 invalid_request_error: 6 is greater than the maximum of 5 - 'logprobs' (x-request-id req_123)",
    },
    {
      what: 'apim-request-id wins over x-request-id',
      status: 429,
      body: JSON.stringify({
        error: { code: '429', message: 'Requests have exceeded call rate limit. Please retry after 1 second.' },
      }),
      headers: { 'apim-request-id': 'apim-1', 'x-request-id': 'x-1' },
      message:
        'azure-openai returned HTTP 429 429: Requests have exceeded call rate limit. Please retry after 1 second. (apim-request-id apim-1)',
    },
    {
      what: "API Management's own shape",
      status: 401,
      body: JSON.stringify({
        statusCode: 401,
        message: 'Unauthorized. Access token is missing, invalid, audience is incorrect, or have expired.',
      }),
      headers: {},
      message:
        'azure-openai returned HTTP 401: Unauthorized. Access token is missing, invalid, audience is incorrect, or have expired.',
    },
    {
      what: 'a proxy page that is not JSON',
      status: 502,
      body: '<html><body>Bad gateway</body></html>',
      headers: {},
      message: 'azure-openai returned HTTP 502: Bad gateway',
    },
    {
      what: 'an empty body',
      status: 503,
      body: '',
      headers: {},
      message: 'azure-openai returned HTTP 503: Service Unavailable',
    },
  ])('$what', ({ status, body, headers, message }) => {
    const details = azureOpenAiGenerate.parseError(status, body, headers);
    expect(details.provider).toBe('azure-openai');
    expect(details.status).toBe(status);
    expect(formatApiMessage(details)).toBe(message);
  });

  test('the openai kind names itself', () => {
    const details = openAiGenerate.parseError(
      401,
      JSON.stringify({
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      }),
      { 'x-request-id': 'r' },
    );
    expect(details).toEqual({
      provider: 'openai',
      status: 401,
      code: 'invalid_api_key',
      message: 'Incorrect API key provided',
      traceId: 'r',
      traceLabel: 'x-request-id',
    });
  });
});
