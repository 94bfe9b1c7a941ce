import { describe, expect, test } from 'vitest';
import {
  alephAlphaDocumentSchema,
  alephAlphaEvaluationRequestSchema,
  alephAlphaEvaluationResponseSchema,
  alephAlphaEvaluationResultSchema,
  alephAlphaExplanationItemSchema,
  alephAlphaExplanationRequestSchema,
  alephAlphaExplanationResponseSchema,
  alephAlphaQaRequestSchema,
  alephAlphaQaResponseSchema,
  alephAlphaSummarizationRequestSchema,
  alephAlphaSummarizationResponseSchema,
  PROMPT_GRANULARITIES,
} from '../contract/aleph-alpha-task-schemas.js';
import { alephAlphaSeed, seedProperties, seedRequired, seedSection } from '../contract/aleph-alpha-seed.js';
import { checkProperty, SAMPLES, shapeOf } from '../contract/aleph-alpha-seed-check.js';

/**
 * The seed (the provider's OpenAPI document, flattened onto one line) is read at test time: each schema section's
 * properties come as `name: type: T …` or `name: $ref: "…"`, with `nullable: true`, `enum: […]`, `minimum: N`,
 * `maximum: N` before the next property, and `required: - a - b`. Nesting is lost in the flattening, so nested
 * properties are sliced off by name where a section has them.
 */
const section = seedSection;
const properties = seedProperties;
const requiredOf = seedRequired;
const seed = alephAlphaSeed;


function requiredIn(schema: unknown): string[] {
  const shape = shapeOf(schema);
  return Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success).sort();
}

/** A request section: exactly its fields, its required list, each field's type. `nested` names are checked apart. */
function checkRequest(name: string, text: string, schema: unknown, nested: string[] = []): void {
  const props = properties(text).filter((p) => !nested.includes(p.name));
  describe(`the ${name} contract follows the seed`, () => {
    test('the schema has exactly the seed\'s fields', () => {
      expect(Object.keys(shapeOf(schema)).sort()).toEqual(props.map((p) => p.name).sort());
    });
    test('exactly the seed\'s required fields are required', () => {
      expect(requiredIn(schema)).toEqual(requiredOf(text).sort());
    });
    test.each(props.map((p) => [p.name, p] as const))('%s has the seed\'s type, nullability, enum and range', (_n, p) => {
      checkProperty(shapeOf(schema)[p.name]!, p, name);
    });
  });
}

const evaluationRequest = section('EvaluationRequest: type: object', 'EvaluationResponse: type: object');
const explanationRequest = section('ExplanationRequest: type: object', 'TokenIdsPromptItemImportance:');
const qaRequest = section('QARequest:', 'QAResponse:');
const summarizationRequest = section('SummarizationRequest: type: object', 'SummarizationResponse: type: object');

checkRequest('EvaluationRequest', evaluationRequest, alephAlphaEvaluationRequestSchema);
// prompt_granularity's own properties (type, delimiter) follow it in the flattened text; the regex reads its `type`
// as a property named "properties".
checkRequest('ExplanationRequest', explanationRequest, alephAlphaExplanationRequestSchema, ['properties', 'delimiter']);
checkRequest('QARequest', qaRequest, alephAlphaQaRequestSchema);
checkRequest('SummarizationRequest', summarizationRequest, alephAlphaSummarizationRequestSchema);

describe('nested request parts follow the seed', () => {
  test('the seed was read: the request sections have their documented field counts', () => {
    expect(properties(evaluationRequest)).toHaveLength(6);
    expect(properties(explanationRequest).filter((p) => !['properties', 'delimiter'].includes(p.name))).toHaveLength(12);
    expect(properties(qaRequest)).toHaveLength(4);
    expect(properties(summarizationRequest)).toHaveLength(2);
  });

  test('prompt_granularity has type (the seed\'s five granularities) and delimiter, both optional', () => {
    const start = explanationRequest.indexOf('prompt_granularity:');
    const part = explanationRequest.slice(start, explanationRequest.indexOf('target_granularity:'));
    const values = /enum: \[([^\]]*)\]/.exec(part)![1]!.split(',').map((v) => v.trim().replace(/"/g, ''));
    expect(values).toEqual([...PROMPT_GRANULARITIES]);
    expect(part).toMatch(/delimiter: type: string/);
    const schema = shapeOf(alephAlphaExplanationRequestSchema).prompt_granularity!;
    for (const type of values) expect(schema.safeParse({ type }).success).toBe(true);
    expect(schema.safeParse({ type: 'custom', delimiter: '###' }).success).toBe(true);
    expect(schema.safeParse({}).success).toBe(true);
    expect(schema.safeParse({ type: 'line' }).success).toBe(false);
    expect(schema.safeParse({ type: 'word', size: 2 }).success).toBe(false);
  });

  test('QARequest.documents holds Documents: a docx (base64), a text or a multimodal prompt — one of them', () => {
    const document = properties(section('Document:', 'CompletionRequest:')).map((p) => p.name);
    expect(document).toEqual(['docx', 'text', 'prompt']);
    expect(section('Document:', 'CompletionRequest:')).toMatch(/docx: type: string format: base64/);
    expect(alephAlphaDocumentSchema.safeParse({ docx: 'UEsDBA==' }).success).toBe(true);
    expect(alephAlphaDocumentSchema.safeParse({ text: 'Andreas likes Pizza.' }).success).toBe(true);
    expect(alephAlphaDocumentSchema.safeParse({ prompt: [{ type: 'text', data: 'x' }] }).success).toBe(true);
    expect(alephAlphaDocumentSchema.safeParse({ docx: 'not base64!' }).success).toBe(false);
    expect(alephAlphaDocumentSchema.safeParse({ text: 'a', docx: 'UEsDBA==' }).success).toBe(false);
    expect(alephAlphaDocumentSchema.safeParse({}).success).toBe(false);
    expect(qaRequest).toMatch(/documents: type: array items: \$ref: "#\/components\/schemas\/Document"/);
  });

  test('the seed\'s own example requests pass; an unknown field does not', () => {
    expect(alephAlphaEvaluationRequestSchema.safeParse({ model: 'luminous-base', prompt: 'An apple a day', completion_expected: 'keeps the doctor away.' }).success).toBe(true);
    expect(alephAlphaQaRequestSchema.safeParse({ query: 'Who likes Pizza?', documents: [{ text: 'Andreas likes Pizza.' }, { docx: 'UEsDBA==' }] }).success).toBe(true);
    // The seed's SummarizationRequest example names a model, which its properties do not have (nor does the spec page).
    expect(summarizationRequest).toMatch(/example: model: luminous-extended/);
    expect(alephAlphaSummarizationRequestSchema.safeParse({ document: { text: 'Some people like pizza more than burgers.' } }).success).toBe(true);
    expect(alephAlphaSummarizationRequestSchema.safeParse({ model: 'luminous-extended', document: { text: 'x' } }).success).toBe(false);
    expect(alephAlphaEvaluationRequestSchema.safeParse({ model: 'm', prompt: 'p', completion_expected: 'c', expected: 'c' }).success).toBe(false);
  });
});

describe('the response contracts follow the seed', () => {
  const evaluation = properties(section('EvaluationResponse: type: object', 'SummarizationRequest: type: object'));
  const resultStart = evaluation.findIndex((p) => p.name === 'result') + 1;
  const resultEnd = evaluation.findIndex((p) => p.name === 'num_tokens_prompt_total');

  test('EvaluationResponse: model_version, result, num_tokens_prompt_total', () => {
    const top = [...evaluation.slice(0, resultStart), ...evaluation.slice(resultEnd)].map((p) => p.name);
    expect(Object.keys(shapeOf(alephAlphaEvaluationResponseSchema)).sort()).toEqual(top.sort());
  });

  test.each(evaluation.slice(resultStart, resultEnd).map((p) => [p.name, p] as const))('EvaluationResponse.result.%s has the seed\'s type and is nullable', (_n, p) => {
    expect(p.nullable).toBe(true);
    const schema = shapeOf(alephAlphaEvaluationResultSchema)[p.name]!;
    expect(schema, p.name).toBeDefined();
    expect(schema.safeParse(null).success).toBe(true);
    const [good, bad] = SAMPLES[p.type!]!;
    // Metrics have their sign: log probabilities are at most 0, perplexities and counts at least 0.
    expect(schema.safeParse(p.name === 'log_probability' ? -0.5 : good).success).toBe(true);
    expect(schema.safeParse(bad).success).toBe(false);
  });

  test('EvaluationResponse.result has exactly the seed\'s metrics; its example passes', () => {
    expect(Object.keys(shapeOf(alephAlphaEvaluationResultSchema)).sort()).toEqual(evaluation.slice(resultStart, resultEnd).map((p) => p.name).sort());
    const example = {
      model_version: '2021-12',
      result: {
        log_probability: -1.2281955, log_perplexity: 1.2281955, log_perplexity_per_token: 0.24563909, log_perplexity_per_character: 1.2281955,
        correct_greedy: true, token_count: 5, character_count: 1, completion: ' keeps the doctor away.',
      },
      num_tokens_prompt_total: 9,
    };
    expect(alephAlphaEvaluationResponseSchema.safeParse(example).success).toBe(true);
  });

  test('ExplanationResponse: model_version and explanations of {target, items}; items are the four importances', () => {
    const text = section('ExplanationResponse:', 'QARequest:');
    expect(text).toMatch(/model_version: type: string explanations: description:/);
    expect(text).toMatch(/target: description: .* type: string items:/);
    for (const ref of ['TokenIdsPromptItemImportance', 'TargetItemImportance', 'TextPromptItemImportance', 'ImagePromptItemImportance']) {
      expect(text).toContain(`$ref: "#/components/schemas/${ref}"`);
    }
    expect(Object.keys(shapeOf(alephAlphaExplanationResponseSchema)).sort()).toEqual(['explanations', 'model_version']);
  });

  test.each([
    ['TokenIdsPromptItemImportance:', 'TargetItemImportance:', 'token_ids', { type: 'token_ids', scores: [0.5, -0.1] }],
    ['TargetItemImportance:', 'TextPromptItemImportance:', 'target', { type: 'target', scores: [{ start: 0, length: 3, score: 0.2 }] }],
    ['TextPromptItemImportance:', 'ImagePromptItemImportance:', 'text', { type: 'text', scores: [{ start: 0, length: 3, score: 0.2 }] }],
    ['ImagePromptItemImportance:', 'ExplanationResponse:', 'image', { type: 'image', scores: [{ rect: { top: 0, left: 0, width: 0.5, height: 0.5 }, score: 0.1 }] }],
  ])('%s has the type enum and score fields of the seed', (from, to, type, example) => {
    const text = section(from, to);
    expect(text).toContain(`enum: ["${type}"]`);
    const names = properties(text).map((p) => p.name);
    expect(names.slice(0, 2)).toEqual(['type', 'scores']);
    const scoreFields = names.slice(2).filter((n) => !['top', 'left', 'width', 'height'].includes(n));
    const sample = (example.scores as unknown[])[0];
    if (typeof sample === 'object') expect(Object.keys(sample as object).sort()).toEqual(scoreFields.sort());
    expect(alephAlphaExplanationItemSchema.safeParse(example).success).toBe(true);
    expect(alephAlphaExplanationItemSchema.safeParse({ ...example, extra: 1 }).success).toBe(false);
  });

  test('QAResponse: model_version and answers of {answer, score, evidence}, all three required; its example passes', () => {
    const text = section('QAResponse:', 'EmbeddingRequest:');
    expect(properties(text).map((p) => p.name)).toEqual(['model_version', 'answers', 'answer', 'score', 'evidence']);
    expect(requiredOf(text)).toEqual(['answer', 'score', 'evidence']);
    const example = { answers: [{ answer: 'Andreas', score: 0.9980973, evidence: 'Andreas likes Pizza.' }], model_version: '2021-12' };
    expect(alephAlphaQaResponseSchema.safeParse(example).success).toBe(true);
    expect(alephAlphaQaResponseSchema.safeParse({ ...example, answers: [{ answer: 'Andreas', score: 0.9 }] }).success).toBe(false);
  });

  test('SummarizationResponse: model_version and summary; its example passes', () => {
    const text = section('SummarizationResponse: type: object', 'TokenizationRequest: type: object');
    expect(properties(text).map((p) => p.name).sort()).toEqual(Object.keys(shapeOf(alephAlphaSummarizationResponseSchema)).sort());
    expect(alephAlphaSummarizationResponseSchema.safeParse({ summary: 'All people love food', model_version: '2021-12' }).success).toBe(true);
  });
});

describe('the endpoints are the seed\'s', () => {
  test.each([
    ['/evaluate', 'EvaluationRequest', 'EvaluationResponse'],
    ['/explain', 'ExplanationRequest', 'ExplanationResponse'],
    ['/qa', 'QARequest', 'QAResponse'],
    ['/summarize', 'SummarizationRequest', 'SummarizationResponse'],
  ])('%s: POST with the nice query parameter, %s in, %s out', (path, request, response) => {
    const start = seed.indexOf(`${path}: post:`);
    expect(start).toBeGreaterThan(0);
    const text = seed.slice(start, seed.indexOf('"200"', start) + 200);
    expect(text).toMatch(/in: query name: nice schema: type: boolean/);
    expect(text).toContain(`$ref: "#/components/schemas/${request}"`);
    expect(text).toContain(`$ref: "#/components/schemas/${response}"`);
  });
});
