import { describe, expect, test } from 'vitest';
import { AZURE_OPENAI_CONTRACT } from '../contract/azure-openai-contract.js';
import {
  completionsErrorSchema,
  completionsRequestSchema,
  completionsResponseSchema,
  schemaErrors,
} from '../contract/azure-openapi.js';

const { completions } = AZURE_OPENAI_CONTRACT.operations;

describe('the OpenAPI document as ajv schemas', () => {
  test("the request schema takes the document's own example and rejects wrong types", () => {
    const validate = completionsRequestSchema();
    expect(schemaErrors(validate, completions.request.example)).toBe('');
    expect(schemaErrors(validate, { prompt: 'Negate the following sentence.', max_tokens: 50 })).toBe('');
    expect(schemaErrors(validate, { prompt: null, max_tokens: null, stop: null })).toBe('');
    expect(validate({ prompt: 'x', max_tokens: 'fifty' })).toBe(false);
    expect(validate({ prompt: 'x', stop: [1] })).toBe(false);
    expect(validate({ prompt: 'x', logit_bias: null })).toBe(false);
  });

  test("the 200 schema takes the spec page's answer and the document's own, with the documented nulls", () => {
    const answer = AZURE_OPENAI_CONTRACT.pageExamples.completionAnswer as Record<string, unknown>;
    expect(schemaErrors(completionsResponseSchema(), answer)).toBe('');
    expect(schemaErrors(completionsResponseSchema(), completions.responses['200']!.example)).toBe('');
    const echoed = {
      ...answer,
      choices: [
        {
          text: 'Hi there',
          index: 0,
          finish_reason: null,
          logprobs: {
            tokens: ['Hi', ' there'],
            token_logprobs: [null, -0.5],
            top_logprobs: [null, { ' there': -0.5 }],
            text_offset: [0, 2],
          },
        },
      ],
    };
    expect(schemaErrors(completionsResponseSchema(), echoed)).toBe('');
    expect(completionsResponseSchema()({ ...answer, choices: [{ text: 1 }] })).toBe(false);
    expect(
      completionsResponseSchema()({ ...answer, choices: [{ text: 'x', logprobs: { token_logprobs: ['a'] } }] }),
    ).toBe(false);
  });

  test("the error schema is the document's errorResponse", () => {
    expect(
      schemaErrors(completionsErrorSchema(), {
        error: { code: 'content_filter', message: 'filtered', param: 'prompt' },
      }),
    ).toBe('');
    expect(completionsErrorSchema()({ error: { code: 400 } })).toBe(false);
  });
});
