import { describe, expect, test } from 'vitest';
import { oipValidators } from '../contract/oip-openapi.js';

/** The loader itself: a validator that accepts everything would make every other test pass for nothing. */
describe('the OpenAPI document as loaded for tests', () => {
  const v = oipValidators();

  test.each([
    ['a request without text_input', v.generateRequest, { parameters: {} }],
    ['a request with a negative temperature', v.generateRequest, { text_input: 'x', parameters: { temperature: -1 } }],
    ['a request with max_tokens 0', v.generateRequest, { text_input: 'x', parameters: { max_tokens: 0 } }],
    ['a request with a fractional max_tokens', v.generateRequest, { text_input: 'x', parameters: { max_tokens: 1.5 } }],
    ['a request with top_p above 1', v.generateRequest, { text_input: 'x', parameters: { top_p: 1.5 } }],
    ['a request with stop as a string', v.generateRequest, { text_input: 'x', parameters: { stop: 'x' } }],
    ['an answer without model_name', v.generateResponse, { text_output: 'x' }],
    [
      'an answer with an unknown finish reason',
      v.generateResponse,
      { text_output: 'x', model_name: 'm', details: { finish_reason: 'stop', logprobs: [] } },
    ],
    [
      'an answer whose token has no id',
      v.generateResponse,
      {
        text_output: 'x',
        model_name: 'm',
        details: { finish_reason: 'length', logprobs: [{ text: 'x', logprob: -1, special: false }] },
      },
    ],
    [
      'a stream message whose details lack a finish reason',
      v.streamMessage,
      { text_output: 'x', model_name: 'm', details: { token: { id: 1, text: 'x', logprob: -1, special: false } } },
    ],
    ['an error without error', v.error, { message: 'x' }],
  ])('rejects %s', (_name, validate, value) => {
    expect(validate(value)).toBe(false);
  });

  test.each([
    ['a minimal request', v.generateRequest, { text_input: 'x' }],
    [
      'a request with unknown parameter keys',
      v.generateRequest,
      { text_input: 'x', parameters: { top_k: 5, beam_width: 2 } },
    ],
    ['a minimal answer', v.generateResponse, { text_output: 'x', model_name: 'm' }],
    ['a stream message without details', v.streamMessage, { text_output: 'x', model_name: 'm' }],
    ['an error', v.error, { error: 'Model is overloaded' }],
  ])('accepts %s', (_name, validate, value) => {
    expect(validate(value)).toBe(true);
  });
});
