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
  ALEPH_ALPHA_TASK_REQUEST_SCHEMAS,
  PROMPT_GRANULARITIES,
} from '../contract/aleph-alpha-task-schemas.js';
import {
  ALEPH_ALPHA_ENDPOINTS,
  ALEPH_ALPHA_SCHEMAS,
  fieldOf,
  propertiesOf,
  requiredOf,
  type SchemaFacts,
} from '../contract/aleph-alpha-contract.js';
import { checkProperty, SAMPLES, shapeOf } from '../contract/aleph-alpha-property-check.js';

/**
 * The hand-written task schemas against the project's record of the provider's OpenAPI document (1.16.1,
 * aleph-alpha-contract.ts): field lists, required lists, each field's type, nullability, enum and range, the nested
 * parts, the document's examples and the endpoints.
 */
const S = ALEPH_ALPHA_SCHEMAS;

function requiredIn(schema: unknown): string[] {
  const shape = shapeOf(schema);
  return Object.keys(shape)
    .filter((k) => !shape[k]!.safeParse(undefined).success)
    .sort();
}

/** A request schema: exactly its fields, its required list, each field's type. */
function checkRequest(name: keyof typeof S, schema: unknown): void {
  const facts: SchemaFacts = S[name];
  const props = propertiesOf(facts);
  describe(`the ${name} contract follows the document`, () => {
    test("the schema has exactly the document's fields", () => {
      expect(Object.keys(shapeOf(schema)).sort()).toEqual(props.map((p) => p.name).sort());
    });
    test("exactly the document's required fields are required", () => {
      expect(requiredIn(schema)).toEqual(requiredOf(facts).sort());
    });
    test.each(props.map((p) => [p.name, p] as const))(
      "%s has the document's type, nullability, enum and range",
      (_n, p) => {
        checkProperty(shapeOf(schema)[p.name]!, p, name);
      },
    );
  });
}

const REQUEST_SCHEMAS = {
  EvaluationRequest: alephAlphaEvaluationRequestSchema,
  ExplanationRequest: alephAlphaExplanationRequestSchema,
  QARequest: alephAlphaQaRequestSchema,
  SummarizationRequest: alephAlphaSummarizationRequestSchema,
} as const;
for (const [name, schema] of Object.entries(REQUEST_SCHEMAS))
  checkRequest(name as keyof typeof REQUEST_SCHEMAS, schema);

describe('nested request parts follow the document', () => {
  test('the request schemas have their documented field counts', () => {
    expect(propertiesOf(S.EvaluationRequest)).toHaveLength(6);
    expect(propertiesOf(S.ExplanationRequest)).toHaveLength(12);
    expect(propertiesOf(S.QARequest)).toHaveLength(4);
    expect(propertiesOf(S.SummarizationRequest)).toHaveLength(2);
  });

  test("prompt_granularity has type (the document's five granularities) and delimiter, both optional", () => {
    const part = fieldOf(S.ExplanationRequest, 'prompt_granularity');
    const values = fieldOf(part, 'type').enum!.map(String);
    expect(values).toEqual([...PROMPT_GRANULARITIES]);
    expect(propertiesOf(part)).toEqual([
      { name: 'type', type: 'string', nullable: false, enum: [...PROMPT_GRANULARITIES] },
      { name: 'delimiter', type: 'string', nullable: false },
    ]);
    expect(requiredOf(part)).toEqual([]);
    const schema = shapeOf(alephAlphaExplanationRequestSchema).prompt_granularity!;
    for (const type of values) expect(schema.safeParse({ type }).success).toBe(true);
    expect(schema.safeParse({ type: 'custom', delimiter: '###' }).success).toBe(true);
    expect(schema.safeParse({}).success).toBe(true);
    expect(schema.safeParse({ type: 'line' }).success).toBe(false);
    expect(schema.safeParse({ type: 'word', size: 2 }).success).toBe(false);
  });

  test('QARequest.documents holds Documents: a docx (base64), a text or a multimodal prompt — one of them', () => {
    const document = S.Document.oneOf.flatMap((d) => propertiesOf(d).map((p) => p.name));
    expect(document).toEqual(['docx', 'text', 'prompt']);
    expect(S.Document.oneOf[0].properties.docx).toEqual({ type: 'string', format: 'base64' });
    expect(alephAlphaDocumentSchema.safeParse({ docx: 'UEsDBA==' }).success).toBe(true);
    expect(alephAlphaDocumentSchema.safeParse({ text: 'Andreas likes Pizza.' }).success).toBe(true);
    expect(alephAlphaDocumentSchema.safeParse({ prompt: [{ type: 'text', data: 'x' }] }).success).toBe(true);
    expect(alephAlphaDocumentSchema.safeParse({ docx: 'not base64!' }).success).toBe(false);
    expect(alephAlphaDocumentSchema.safeParse({ text: 'a', docx: 'UEsDBA==' }).success).toBe(false);
    expect(alephAlphaDocumentSchema.safeParse({}).success).toBe(false);
    expect(fieldOf(S.QARequest, 'documents')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Document' },
    });
  });

  test("the document's own example requests pass; an unknown field does not", () => {
    expect(alephAlphaEvaluationRequestSchema.safeParse(S.EvaluationRequest.example).success).toBe(true);
    // The example's docx is a placeholder, not base64: a real (if tiny) one stands in for it.
    const [text, docx] = S.QARequest.example.documents;
    expect(docx).toEqual({ docx: 'b64;base64EncodededWordDocument' });
    expect(
      alephAlphaQaRequestSchema.safeParse({ ...S.QARequest.example, documents: [text, { docx: 'UEsDBA==' }] }).success,
    ).toBe(true);
    // The document's SummarizationRequest example names a model, which its properties do not have (nor does the spec page).
    const { model, ...withoutModel } = S.SummarizationRequest.example;
    expect(model).toBe('luminous-extended');
    expect(alephAlphaSummarizationRequestSchema.safeParse(withoutModel).success).toBe(true);
    expect(
      alephAlphaSummarizationRequestSchema.safeParse({ model: 'luminous-extended', document: { text: 'x' } }).success,
    ).toBe(false);
    expect(
      alephAlphaEvaluationRequestSchema.safeParse({ model: 'm', prompt: 'p', completion_expected: 'c', expected: 'c' })
        .success,
    ).toBe(false);
  });
});

describe('the response contracts follow the document', () => {
  const metrics = propertiesOf(fieldOf(S.EvaluationResponse, 'result'));

  test('EvaluationResponse: model_version, result, num_tokens_prompt_total', () => {
    const top = propertiesOf(S.EvaluationResponse).map((p) => p.name);
    expect(top).toEqual(['model_version', 'result', 'num_tokens_prompt_total']);
    expect(Object.keys(shapeOf(alephAlphaEvaluationResponseSchema)).sort()).toEqual(top.sort());
  });

  test.each(metrics.map((p) => [p.name, p] as const))(
    "EvaluationResponse.result.%s has the document's type and is nullable",
    (_n, p) => {
      expect(p.nullable).toBe(true);
      const schema = shapeOf(alephAlphaEvaluationResultSchema)[p.name]!;
      expect(schema, p.name).toBeDefined();
      expect(schema.safeParse(null).success).toBe(true);
      const [good, bad] = SAMPLES[p.type!]!;
      // Metrics have their sign: log probabilities are at most 0, perplexities and counts at least 0.
      expect(schema.safeParse(p.name === 'log_probability' ? -0.5 : good).success).toBe(true);
      expect(schema.safeParse(bad).success).toBe(false);
    },
  );

  test("EvaluationResponse.result has exactly the document's metrics; its example passes", () => {
    expect(metrics).toHaveLength(8);
    expect(Object.keys(shapeOf(alephAlphaEvaluationResultSchema)).sort()).toEqual(metrics.map((p) => p.name).sort());
    expect(alephAlphaEvaluationResponseSchema.safeParse(S.EvaluationResponse.example).success).toBe(true);
  });

  test('ExplanationResponse: model_version and explanations of {target, items}; items are the four importances', () => {
    expect(propertiesOf(S.ExplanationResponse).map((p) => p.name)).toEqual(['model_version', 'explanations']);
    expect(fieldOf(S.ExplanationResponse, 'model_version')).toEqual({ type: 'string' });
    expect(fieldOf(S.ExplanationResponse, 'explanations', 'target')).toEqual({ type: 'string' });
    const items = fieldOf(S.ExplanationResponse, 'explanations', 'items');
    expect(items.type).toBe('array');
    expect(items.items?.oneOf?.map((r) => r.$ref)).toEqual(
      [
        'TokenIdsPromptItemImportance',
        'TargetItemImportance',
        'TextPromptItemImportance',
        'ImagePromptItemImportance',
      ].map((n) => `#/components/schemas/${n}`),
    );
    expect(Object.keys(shapeOf(alephAlphaExplanationResponseSchema)).sort()).toEqual(['explanations', 'model_version']);
  });

  test.each([
    ['TokenIdsPromptItemImportance', 'token_ids', { type: 'token_ids', scores: [0.5, -0.1] }],
    ['TargetItemImportance', 'target', { type: 'target', scores: [{ start: 0, length: 3, score: 0.2 }] }],
    ['TextPromptItemImportance', 'text', { type: 'text', scores: [{ start: 0, length: 3, score: 0.2 }] }],
    [
      'ImagePromptItemImportance',
      'image',
      { type: 'image', scores: [{ rect: { top: 0, left: 0, width: 0.5, height: 0.5 }, score: 0.1 }] },
    ],
  ] as const)('%s has the type enum and score fields of the document', (name, type, example) => {
    const facts: SchemaFacts = S[name];
    expect(fieldOf(facts, 'type').enum).toEqual([type]);
    const names = propertiesOf(facts).map((p) => p.name);
    expect(names).toEqual(['type', 'scores']);
    const scoreFields = propertiesOf(fieldOf(facts, 'scores')).map((p) => p.name);
    const sample = (example.scores as readonly unknown[])[0];
    if (typeof sample === 'object') expect(Object.keys(sample as object).sort()).toEqual(scoreFields.sort());
    else expect(fieldOf(facts, 'scores').items).toEqual({ type: 'number' });
    expect(alephAlphaExplanationItemSchema.safeParse(example).success).toBe(true);
    expect(alephAlphaExplanationItemSchema.safeParse({ ...example, extra: 1 }).success).toBe(false);
  });

  test('QAResponse: model_version and answers of {answer, score, evidence}, all three required; its example passes', () => {
    expect(propertiesOf(S.QAResponse).map((p) => p.name)).toEqual(['model_version', 'answers']);
    const answers = fieldOf(S.QAResponse, 'answers');
    expect(propertiesOf(answers).map((p) => p.name)).toEqual(['answer', 'score', 'evidence']);
    expect(requiredOf(S.QAResponse)).toEqual([]);
    expect(requiredOf(answers)).toEqual(['answer', 'score', 'evidence']);
    const example = S.QAResponse.example;
    expect(alephAlphaQaResponseSchema.safeParse(example).success).toBe(true);
    expect(
      alephAlphaQaResponseSchema.safeParse({ ...example, answers: [{ answer: 'Andreas', score: 0.9 }] }).success,
    ).toBe(false);
  });

  test('SummarizationResponse: model_version and summary; its example passes', () => {
    expect(
      propertiesOf(S.SummarizationResponse)
        .map((p) => p.name)
        .sort(),
    ).toEqual(Object.keys(shapeOf(alephAlphaSummarizationResponseSchema)).sort());
    expect(alephAlphaSummarizationResponseSchema.safeParse(S.SummarizationResponse.example).success).toBe(true);
  });
});

describe("the endpoints are the document's", () => {
  test.each([
    ['/evaluate', 'EvaluationRequest', 'EvaluationResponse'],
    ['/explain', 'ExplanationRequest', 'ExplanationResponse'],
    ['/qa', 'QARequest', 'QAResponse'],
    ['/summarize', 'SummarizationRequest', 'SummarizationResponse'],
  ] as const)('%s: POST with the nice query parameter, %s in, %s out', (path, request, response) => {
    expect(ALEPH_ALPHA_ENDPOINTS[path]).toEqual({ method: 'post', query: { nice: 'boolean' }, request, response });
    // The request schema the wire checks use for this path is the one held to the document's request above.
    expect(ALEPH_ALPHA_TASK_REQUEST_SCHEMAS[path]).toBe(REQUEST_SCHEMAS[request]);
  });
});
