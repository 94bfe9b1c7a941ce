import { describe, expect, test } from 'vitest';
import {
  alephAlphaCompletionRequestSchema,
  alephAlphaCompletionResponseSchema,
  alephAlphaCompletionSchema,
} from '../contract/aleph-alpha-schemas.js';
import { alephAlphaSeed, seedProperties, seedSection } from '../contract/aleph-alpha-seed.js';
import { checkProperty, shapeOf } from '../contract/aleph-alpha-seed-check.js';

/**
 * The provider's OpenAPI document (1.16.1) is stored flattened onto one line, so it cannot be parsed as YAML. Its
 * schema sections are still regular: `name: type: T …` or `name: $ref: "…"` per property, `nullable: true`,
 * `items: type: T` for arrays, `maximum: N`, `required: - a - b`. This reads them and holds the hand-written
 * contract schemas to them.
 */
const section = seedSection;
const properties = seedProperties;
const seed = alephAlphaSeed;

const requestSection = section('CompletionRequest: type: object', 'CompletionResponse: type: object');
const requestProps = properties(requestSection);
const required = (/required: ((?:- \w+ ?)+)/.exec(requestSection)?.[1] ?? '').split('-').map((s) => s.trim()).filter(Boolean);

const responseProps = properties(section('CompletionResponse: type: object', 'ExplanationRequest:'));
// The flattened text loses nesting: the completion item's properties are the ones between `completions` and the
// next top-level property, `optimized_prompt`.
const itemStart = responseProps.findIndex((p) => p.name === 'completions') + 1;
const itemEnd = responseProps.findIndex((p) => p.name === 'optimized_prompt');
const itemProps = responseProps.slice(itemStart, itemEnd);
const topProps = [...responseProps.slice(0, itemStart), ...responseProps.slice(itemEnd)];


describe('the request contract follows the seed\'s CompletionRequest', () => {
  test('the seed was read: 35 properties, model, prompt and maximum_tokens required', () => {
    expect(requestProps).toHaveLength(35);
    expect(required).toEqual(['model', 'prompt', 'maximum_tokens']);
  });

  test('the schema has exactly the seed\'s fields, plus stream (1.19+)', () => {
    expect(Object.keys(shapeOf(alephAlphaCompletionRequestSchema)).sort()).toEqual([...requestProps.map((p) => p.name), 'stream'].sort());
  });

  test('exactly the seed\'s required fields are required', () => {
    const shape = shapeOf(alephAlphaCompletionRequestSchema);
    const requiredHere = Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success);
    expect(requiredHere.sort()).toEqual([...required].sort());
  });

  test.each(requestProps.map((p) => [p.name, p] as const))('%s has the seed\'s type, nullability and maximum', (_name, p) => {
    checkProperty(shapeOf(alephAlphaCompletionRequestSchema)[p.name]!, p, 'CompletionRequest');
  });

  test('the seed\'s own example request passes; an unknown field does not', () => {
    expect(alephAlphaCompletionRequestSchema.safeParse({ model: 'luminous-base', prompt: 'An apple a day', maximum_tokens: 64 }).success).toBe(true);
    expect(alephAlphaCompletionRequestSchema.safeParse({ model: 'luminous-base', prompt: 'x', maximum_tokens: 64, max_tokens: 64 }).success).toBe(false);
  });
});

describe('the response contract follows the seed\'s CompletionResponse', () => {
  test('top-level fields are the seed\'s', () => {
    expect(Object.keys(shapeOf(alephAlphaCompletionResponseSchema)).sort()).toEqual(topProps.map((p) => p.name).sort());
  });

  test('completion fields are the seed\'s', () => {
    expect(Object.keys(shapeOf(alephAlphaCompletionSchema)).sort()).toEqual(itemProps.map((p) => p.name).sort());
  });

  test.each(topProps.filter((p) => p.name !== 'completions').map((p) => [p.name, p] as const))('%s has the seed\'s type', (_name, p) => {
    checkProperty(shapeOf(alephAlphaCompletionResponseSchema)[p.name]!, p, 'CompletionResponse');
  });

  test.each(itemProps.filter((p) => p.name !== 'log_probs').map((p) => [p.name, p] as const))('completions[].%s has the seed\'s type', (_name, p) => {
    checkProperty(shapeOf(alephAlphaCompletionSchema)[p.name]!, p, 'Completion');
  });

  test('completions[].log_probs is, as the seed describes it, a list with a dictionary per token (its `type: object` is not what the service sends)', () => {
    const p = itemProps.find((x) => x.name === 'log_probs')!;
    expect(p).toMatchObject({ type: 'object', nullable: true });
    expect(seed).toContain('list with a dictionary for each generated token');
    const schema = shapeOf(alephAlphaCompletionSchema).log_probs!;
    expect(schema.safeParse([{ ' keeps': -0.3 }, {}]).success).toBe(true);
    expect(schema.safeParse(null).success).toBe(true);
    expect(schema.safeParse({ ' keeps': -0.3 }).success).toBe(false);
  });

  test('the spec page\'s example answer passes', () => {
    const example = {
      model_version: '2022-04',
      completions: [{ completion: ' keeps the doctor away,', finish_reason: 'maximum_tokens', log_probs: [{ ' keeps': -0.3 }], completion_tokens: [' keeps'] }],
      num_tokens_prompt_total: 4,
      num_tokens_generated: 5,
    };
    expect(alephAlphaCompletionResponseSchema.safeParse(example).success).toBe(true);
  });
});
