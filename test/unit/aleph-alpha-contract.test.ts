import { describe, expect, test } from 'vitest';
import {
  alephAlphaCompletionRequestSchema,
  alephAlphaCompletionResponseSchema,
  alephAlphaCompletionSchema,
} from '../contract/aleph-alpha-schemas.js';
import {
  ALEPH_ALPHA_PAGE_EXAMPLES,
  ALEPH_ALPHA_SCHEMAS,
  fieldOf,
  propertiesOf,
  requiredOf,
} from '../contract/aleph-alpha-contract.js';
import { checkProperty, shapeOf } from '../contract/aleph-alpha-property-check.js';

/**
 * The hand-written zod schemas against the project's record of the provider's OpenAPI document (1.16.1,
 * aleph-alpha-contract.ts): the same fields, the same required list, each field's type, nullability and range.
 */
const { CompletionRequest, CompletionResponse } = ALEPH_ALPHA_SCHEMAS;
const requestProps = propertiesOf(CompletionRequest);
const required = requiredOf(CompletionRequest);
const topProps = propertiesOf(CompletionResponse);
const itemProps = propertiesOf(fieldOf(CompletionResponse, 'completions'));

describe("the request contract follows the document's CompletionRequest", () => {
  test('the contract has 35 properties, model, prompt and maximum_tokens required', () => {
    expect(requestProps).toHaveLength(35);
    expect(required).toEqual(['model', 'prompt', 'maximum_tokens']);
  });

  test("the schema has exactly the document's fields, plus stream (1.19+)", () => {
    expect(Object.keys(shapeOf(alephAlphaCompletionRequestSchema)).sort()).toEqual(
      [...requestProps.map((p) => p.name), 'stream'].sort(),
    );
  });

  test("exactly the document's required fields are required", () => {
    const shape = shapeOf(alephAlphaCompletionRequestSchema);
    const requiredHere = Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success);
    expect(requiredHere.sort()).toEqual([...required].sort());
  });

  test.each(requestProps.map((p) => [p.name, p] as const))(
    "%s has the document's type, nullability and maximum",
    (_name, p) => {
      checkProperty(shapeOf(alephAlphaCompletionRequestSchema)[p.name]!, p, 'CompletionRequest');
    },
  );

  test("the document's own example request passes; an unknown field does not", () => {
    expect(CompletionRequest.example).toEqual({ model: 'luminous-base', prompt: 'An apple a day', maximum_tokens: 64 });
    expect(alephAlphaCompletionRequestSchema.safeParse(CompletionRequest.example).success).toBe(true);
    expect(
      alephAlphaCompletionRequestSchema.safeParse({
        model: 'luminous-base',
        prompt: 'x',
        maximum_tokens: 64,
        max_tokens: 64,
      }).success,
    ).toBe(false);
  });
});

describe("the response contract follows the document's CompletionResponse", () => {
  test("top-level fields are the document's", () => {
    expect(Object.keys(shapeOf(alephAlphaCompletionResponseSchema)).sort()).toEqual(topProps.map((p) => p.name).sort());
  });

  test("completion fields are the document's", () => {
    expect(Object.keys(shapeOf(alephAlphaCompletionSchema)).sort()).toEqual(itemProps.map((p) => p.name).sort());
  });

  test.each(topProps.filter((p) => p.name !== 'completions').map((p) => [p.name, p] as const))(
    "%s has the document's type",
    (_name, p) => {
      checkProperty(shapeOf(alephAlphaCompletionResponseSchema)[p.name]!, p, 'CompletionResponse');
    },
  );

  test.each(itemProps.filter((p) => p.name !== 'log_probs').map((p) => [p.name, p] as const))(
    "completions[].%s has the document's type",
    (_name, p) => {
      checkProperty(shapeOf(alephAlphaCompletionSchema)[p.name]!, p, 'Completion');
    },
  );

  test('completions[].log_probs is, as the document describes it, a list with a dictionary per token (its `type: object` is not what the service sends)', () => {
    const p = itemProps.find((x) => x.name === 'log_probs')!;
    expect(p).toMatchObject({ type: 'object', nullable: true });
    expect(fieldOf(CompletionResponse, 'completions', 'log_probs').description).toContain(
      'list with a dictionary for each generated token',
    );
    const schema = shapeOf(alephAlphaCompletionSchema).log_probs!;
    expect(schema.safeParse([{ ' keeps': -0.3 }, {}]).success).toBe(true);
    expect(schema.safeParse(null).success).toBe(true);
    expect(schema.safeParse({ ' keeps': -0.3 }).success).toBe(false);
  });

  test("the spec page's example answer passes", () => {
    expect(alephAlphaCompletionResponseSchema.safeParse(ALEPH_ALPHA_PAGE_EXAMPLES.completionResponse).success).toBe(
      true,
    );
  });
});
