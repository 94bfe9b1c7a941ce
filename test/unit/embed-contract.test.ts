import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { declaredEmbeddingsAnswer, embeddingsRequestSchema, schemaErrors } from '../contract/azure-embeddings-openapi.js';
import {
  alephAlphaBatchSemanticEmbedRequestSchema,
  alephAlphaBatchSemanticEmbedResponseSchema,
  alephAlphaEmbedRequestSchema,
  alephAlphaEmbedResponseSchema,
  alephAlphaSemanticEmbedRequestSchema,
  alephAlphaSemanticEmbedResponseSchema,
} from '../contract/embed-schemas.js';

/**
 * The Aleph Alpha seed (OpenAPI 1.16.1, flattened onto one line) holds the embedding schemas whole; these tests read
 * their property lists, required lists and enums and hold the hand-written contract schemas to them.
 */
const SEEDS = resolve(import.meta.dirname, '../../../shared/seeds');
const seedFile = readdirSync(SEEDS).find((f) => f.startsWith('002_') && f.endsWith('.txt'));
const seed = readFileSync(resolve(SEEDS, seedFile ?? '002_missing.txt'), 'utf8');

/** The text of one schema: from ` Name: type: object` to the next schema's name (the leading space keeps `Semantic…` apart). */
function section(name: string, next: string): string {
  const start = seed.indexOf(` ${name}: type: object`);
  const end = seed.indexOf(` ${next}:`, start + 1);
  expect(start, `seed section ${name}`).toBeGreaterThanOrEqual(0);
  expect(end, `seed section after ${name}`).toBeGreaterThan(start);
  return seed.slice(start, end);
}

function propertyNames(text: string): string[] {
  const body = text.slice(text.indexOf('properties: ') + 'properties: '.length);
  return [...body.matchAll(/(\w+): (?:type: \w+|\$ref: "[^"]+")/g)].map((m) => m[1]!).filter((n) => n !== 'items');
}

function requiredNames(text: string): string[] {
  return (/required: ((?:- \w+ ?)+)/.exec(text)?.[1] ?? '').split('-').map((s) => s.trim()).filter(Boolean);
}

function shapeOf(schema: unknown): Record<string, ZodType> {
  return (schema as { shape: Record<string, ZodType> }).shape;
}

/** Keys the schema cannot do without: the ones whose absence fails. */
function requiredIn(schema: ZodType): string[] {
  return Object.keys(shapeOf(schema)).filter((k) => shapeOf(schema)[k]!.safeParse(undefined).success === false);
}

const CASES: Array<[string, string, ZodType, 'request' | 'response']> = [
  ['EmbeddingRequest', 'EmbeddingResponse', alephAlphaEmbedRequestSchema, 'request'],
  ['EmbeddingResponse', 'SemanticEmbeddingRequest', alephAlphaEmbedResponseSchema, 'response'],
  ['SemanticEmbeddingRequest', 'SemanticEmbeddingResponse', alephAlphaSemanticEmbedRequestSchema, 'request'],
  ['SemanticEmbeddingResponse', 'BatchSemanticEmbeddingRequest', alephAlphaSemanticEmbedResponseSchema, 'response'],
  ['BatchSemanticEmbeddingRequest', 'BatchSemanticEmbeddingResponse', alephAlphaBatchSemanticEmbedRequestSchema, 'request'],
  ['BatchSemanticEmbeddingResponse', 'EvaluationRequest', alephAlphaBatchSemanticEmbedResponseSchema, 'response'],
];

describe('the Aleph Alpha embedding schemas follow the seed', () => {
  it.each(CASES)('%s: exactly the seed\'s fields', (name, next, schema) => {
    expect(Object.keys(shapeOf(schema)).sort()).toEqual(propertyNames(section(name, next)).sort());
  });

  it.each(CASES.filter((c) => c[3] === 'request'))('%s: exactly the seed\'s required fields', (name, next, schema) => {
    expect(requiredIn(schema).sort()).toEqual(requiredNames(section(name, next)).sort());
  });

  it.each(CASES.filter((c) => c[0].includes('Semantic') && c[3] === 'request'))('%s: the seed\'s representations and compress_to_size', (name, next, schema) => {
    const text = section(name, next);
    const values = JSON.parse(/representation: type: string enum: (\[[^\]]*\])/.exec(text)![1]!) as string[];
    for (const v of values) expect(shapeOf(schema).representation!.safeParse(v).success, v).toBe(true);
    expect(shapeOf(schema).representation!.safeParse('passage').success).toBe(false);
    expect(/compress_to_size: type: integer enum: \[128\] nullable: true/.test(text)).toBe(true);
    expect([128, null].map((v) => shapeOf(schema).compress_to_size!.safeParse(v).success)).toEqual([true, true]);
    expect(shapeOf(schema).compress_to_size!.safeParse(64).success).toBe(false);
  });

  it('the seed declares semantic embeddings as integers, which they are not (a documented deviation)', () => {
    expect(section('SemanticEmbeddingResponse', 'BatchSemanticEmbeddingRequest')).toMatch(/embedding: type: array items: type: integer description: A list of floats/);
    expect(alephAlphaSemanticEmbedResponseSchema.safeParse({ model_version: 'v', embedding: [0.25], num_tokens_prompt_total: 1 }).success).toBe(true);
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
});
