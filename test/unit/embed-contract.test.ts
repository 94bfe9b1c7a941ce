import { describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import {
  declaredEmbeddingsAnswer,
  embeddingsRequestSchema,
  embeddingsResponseSchema,
  schemaErrors,
} from '../contract/azure-embeddings-openapi.js';
import {
  alephAlphaBatchSemanticEmbedRequestSchema,
  alephAlphaBatchSemanticEmbedResponseSchema,
  alephAlphaEmbedRequestSchema,
  alephAlphaEmbedResponseSchema,
  alephAlphaSemanticEmbedRequestSchema,
  alephAlphaSemanticEmbedResponseSchema,
} from '../contract/embed-schemas.js';
import {
  ALEPH_ALPHA_SCHEMAS,
  fieldOf,
  propertiesOf,
  requiredOf,
  type SchemaFacts,
} from '../contract/aleph-alpha-contract.js';
import { AZURE_OPENAI_CONTRACT } from '../contract/azure-openai-contract.js';

/**
 * The project's record of the Aleph Alpha OpenAPI document (1.16.1, aleph-alpha-contract.ts) holds the embedding
 * schemas whole; these tests hold the hand-written contract schemas to its property lists, required lists and enums.
 */
const S = ALEPH_ALPHA_SCHEMAS;

function shapeOf(schema: unknown): Record<string, ZodType> {
  return (schema as { shape: Record<string, ZodType> }).shape;
}

/** Keys the schema cannot do without: the ones whose absence fails. */
function requiredIn(schema: ZodType): string[] {
  return Object.keys(shapeOf(schema)).filter((k) => shapeOf(schema)[k]!.safeParse(undefined).success === false);
}

const CASES: Array<[keyof typeof S, ZodType, 'request' | 'response']> = [
  ['EmbeddingRequest', alephAlphaEmbedRequestSchema, 'request'],
  ['EmbeddingResponse', alephAlphaEmbedResponseSchema, 'response'],
  ['SemanticEmbeddingRequest', alephAlphaSemanticEmbedRequestSchema, 'request'],
  ['SemanticEmbeddingResponse', alephAlphaSemanticEmbedResponseSchema, 'response'],
  ['BatchSemanticEmbeddingRequest', alephAlphaBatchSemanticEmbedRequestSchema, 'request'],
  ['BatchSemanticEmbeddingResponse', alephAlphaBatchSemanticEmbedResponseSchema, 'response'],
];

const facts = (name: keyof typeof S): SchemaFacts => S[name];

describe('the Aleph Alpha embedding schemas follow the document', () => {
  it.each(CASES)("%s: exactly the document's fields", (name, schema) => {
    expect(Object.keys(shapeOf(schema)).sort()).toEqual(
      propertiesOf(facts(name))
        .map((p) => p.name)
        .sort(),
    );
  });

  it.each(CASES.filter((c) => c[2] === 'request'))("%s: exactly the document's required fields", (name, schema) => {
    expect(requiredIn(schema).sort()).toEqual(requiredOf(facts(name)).sort());
  });

  it.each(CASES.filter((c) => c[0].includes('Semantic') && c[2] === 'request'))(
    "%s: the document's representations and compress_to_size",
    (name, schema) => {
      const values = fieldOf(facts(name), 'representation').enum!;
      expect(values).toEqual(['symmetric', 'document', 'query']);
      for (const v of values) expect(shapeOf(schema).representation!.safeParse(v).success, String(v)).toBe(true);
      expect(shapeOf(schema).representation!.safeParse('passage').success).toBe(false);
      expect(fieldOf(facts(name), 'compress_to_size')).toEqual({ type: 'integer', enum: [128], nullable: true });
      expect([128, null].map((v) => shapeOf(schema).compress_to_size!.safeParse(v).success)).toEqual([true, true]);
      expect(shapeOf(schema).compress_to_size!.safeParse(64).success).toBe(false);
    },
  );

  it('the document declares semantic embeddings as integers, which they are not (a documented deviation)', () => {
    expect(fieldOf(S.SemanticEmbeddingResponse, 'embedding')).toEqual({
      type: 'array',
      items: { type: 'integer' },
      description: 'A list of floats',
    });
    expect(
      alephAlphaSemanticEmbedResponseSchema.safeParse({
        model_version: 'v',
        embedding: [0.25],
        num_tokens_prompt_total: 1,
      }).success,
    ).toBe(true);
  });
});

describe('the Azure embeddings request schema, from the OpenAPI document', () => {
  it.each<[string, unknown, boolean]>([
    ['what embed sends to Azure', { input: ['one', 'two'] }, true],
    ['what embed sends to /v1', { model: 'text-embedding-3-small', input: ['one'] }, true],
    ['a single string', { input: 'one' }, true],
    ['token ids', { input: [1212, 318] }, true],
    ['extra fields (additionalProperties: true)', { input: 'x', dimensions: 8 }, true],
    ['no input', {}, false],
    ['an empty string item', { input: ['ok', ''] }, false],
    ['2049 strings', { input: Array.from({ length: 2049 }, () => 'a') }, false],
    ['an empty array', { input: [] }, false],
  ])('%s → %s', (_name, body, ok) => {
    expect(schemaErrors(embeddingsRequestSchema(), body) === '').toBe(ok);
  });

  it('the document declares the 200 body a string: the known bug the answer shape works around', () => {
    expect(declaredEmbeddingsAnswer()).toEqual({ type: 'string' });
  });

  it("the wire-facts page's example answer has the shape the answers are checked against", () => {
    expect(embeddingsResponseSchema.safeParse(AZURE_OPENAI_CONTRACT.pageExamples.embeddingsAnswer).success).toBe(true);
  });
});
