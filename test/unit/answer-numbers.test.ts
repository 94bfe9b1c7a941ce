import { describe, expect, it } from 'vitest';
import { answerNumberProblem } from '../../src/contract/answer-numbers.js';

describe('answerNumberProblem', () => {
  it('passes an answer whose numbers are all usable', () => {
    expect(
      answerNumberProblem({
        id: 'x',
        created: 1,
        choices: [{ index: 0, logprob: -0.25, delta: { content: 'a' } }],
        usage: { prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 },
      }),
    ).toBeUndefined();
    expect(answerNumberProblem([1, 2.5, 'x', null, true])).toBeUndefined();
    expect(answerNumberProblem(7)).toBeUndefined();
  });

  it.each([
    [
      '{"results":[{"generated_token_count":-3}]}',
      '"results[0].generated_token_count" is -3, not a count (a whole number, 0 or more)',
    ],
    ['{"usage":{"prompt_tokens":2.5}}', '"usage.prompt_tokens" is 2.5, not a count (a whole number, 0 or more)'],
    ['{"a":{"b":[0,1e400]}}', '"a.b[1]" is not a finite number (too large for one)'],
    ['{"num_tokens_generated":-1}', '"num_tokens_generated" is -1, not a count (a whole number, 0 or more)'],
    ['{"rank":1.5}', '"rank" is 1.5, not a count (a whole number, 0 or more)'],
    ['{"__proto__":{"x":-1e400}}', '"__proto__.x" is not a finite number (too large for one)'],
    ['1e400', '"(the answer)" is not a finite number (too large for one)'],
  ])('names the first unusable number of %s', (json, message) => {
    expect(answerNumberProblem(JSON.parse(json))).toBe(message);
  });

  it('reads the key of an array element as its array key (token counts in a list)', () => {
    expect(answerNumberProblem({ tokens: [1, 2, -1] })).toBe(
      '"tokens[2]" is -1, not a count (a whole number, 0 or more)',
    );
  });

  it('does not look at inherited keys, as Object.keys does not', () => {
    const proto = { completion_tokens: -1 };
    const value = Object.create(proto) as Record<string, unknown>;
    value.text = 'ok';
    expect(answerNumberProblem(value)).toBeUndefined();
  });

  it('gives the same verdict for many distinct keys (a bounded memo of which keys are counts)', () => {
    const body: Record<string, number> = {};
    for (let i = 0; i < 2000; i++) body[`field_${i}_count`] = i;
    expect(answerNumberProblem(body)).toBeUndefined();
    body.field_1999_count = -1;
    expect(answerNumberProblem(body)).toBe('"field_1999_count" is -1, not a count (a whole number, 0 or more)');
  });
});
