/**
 * Aleph Alpha task wire shapes — `/evaluate`, `/explain`, `/qa`, `/summarize` — as zod schemas, written from the
 * provider's OpenAPI document (API 1.16.1, recorded in aleph-alpha-contract.ts: `EvaluationRequest/Response`,
 * `ExplanationRequest/Response` and the `*ItemImportance`s, `QARequest/QAResponse`, `SummarizationRequest/Response`,
 * `Document`), not from our code. test/unit/aleph-alpha-task-contract.test.ts holds them to the document's field
 * lists, types, enums, ranges and required lists.
 *
 * Requests are strict (an unknown field fails). Deviations from the document, each on purpose:
 * - The document's responses list no required fields (QAResponse's answers aside); the fields its examples show are
 *   required here, and our server's answers are checked strictly (nothing beyond the document's fields).
 * - `Document` is a `oneOf` of three objects without required fields; here each must have its one field, and exactly
 *   one (a document that is both, or neither, is not one of the three).
 */
import { z } from 'zod';
import { alephAlphaHostingSchema, alephAlphaPromptItemSchema, alephAlphaPromptSchema } from './aleph-alpha-schemas.js';

// ---- requests --------------------------------------------------------------------------------

/** `EvaluationRequest` (required: model, prompt, completion_expected). */
export const alephAlphaEvaluationRequestSchema = z.strictObject({
  model: z.string().min(1),
  hosting: alephAlphaHostingSchema.optional(),
  prompt: alephAlphaPromptSchema,
  completion_expected: z.string(),
  contextual_control_threshold: z.number().nullable().optional(),
  control_log_additive: z.boolean().optional(),
});

export const PROMPT_GRANULARITIES = ['token', 'word', 'sentence', 'paragraph', 'custom'] as const;

/** `ExplanationRequest` (required: model, prompt, target; target is nullable). */
export const alephAlphaExplanationRequestSchema = z.strictObject({
  model: z.string().min(1),
  hosting: z.enum(['aleph-alpha']).nullable().optional(),
  prompt: alephAlphaPromptSchema,
  target: z.string().nullable(),
  control_factor: z.number().optional(),
  contextual_control_threshold: z.number().nullable().optional(),
  control_log_additive: z.boolean().optional(),
  postprocessing: z.enum(['none', 'absolute', 'square']).optional(),
  normalize: z.boolean().optional(),
  prompt_granularity: z
    .strictObject({ type: z.enum(PROMPT_GRANULARITIES).optional(), delimiter: z.string().optional() })
    .optional(),
  target_granularity: z.enum(['complete', 'token']).optional(),
  control_token_overlap: z.enum(['partial', 'complete']).optional(),
});

/** `Document`: a base64 Word file, a text, or a multimodal prompt. */
export const alephAlphaDocumentSchema = z.union([
  z.strictObject({ docx: z.base64() }),
  z.strictObject({ text: z.string() }),
  z.strictObject({ prompt: z.array(alephAlphaPromptItemSchema) }),
]);

/** `QARequest` (required: query, documents); no model. */
export const alephAlphaQaRequestSchema = z.strictObject({
  hosting: alephAlphaHostingSchema.optional(),
  query: z.string(),
  documents: z.array(alephAlphaDocumentSchema),
  max_answers: z.int().min(1).max(200).optional(),
});

/** `SummarizationRequest` (required: document); no model. */
export const alephAlphaSummarizationRequestSchema = z.strictObject({
  hosting: alephAlphaHostingSchema.optional(),
  document: alephAlphaDocumentSchema,
});

// ---- responses -------------------------------------------------------------------------------

/** `EvaluationResponse.result`: every metric nullable, as the document has them. */
export const alephAlphaEvaluationResultSchema = z.strictObject({
  log_probability: z.number().max(0).nullable(),
  log_perplexity: z.number().min(0).nullable(),
  log_perplexity_per_token: z.number().min(0).nullable(),
  log_perplexity_per_character: z.number().min(0).nullable(),
  correct_greedy: z.boolean().nullable(),
  token_count: z.int().min(0).nullable(),
  character_count: z.int().min(0).nullable(),
  completion: z.string().nullable(),
});

export const alephAlphaEvaluationResponseSchema = z.strictObject({
  model_version: z.string(),
  result: alephAlphaEvaluationResultSchema,
  num_tokens_prompt_total: z.int().min(0),
});

const spanScoreSchema = z.strictObject({ start: z.int().min(0), length: z.int().min(0), score: z.number() });
const unit = z.number().min(0).max(1);

/** `TokenIdsPromptItemImportance`, `TargetItemImportance`, `TextPromptItemImportance`, `ImagePromptItemImportance`. */
export const alephAlphaExplanationItemSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('token_ids'), scores: z.array(z.number()) }),
  z.strictObject({ type: z.literal('target'), scores: z.array(spanScoreSchema) }),
  z.strictObject({ type: z.literal('text'), scores: z.array(spanScoreSchema) }),
  z.strictObject({
    type: z.literal('image'),
    scores: z.array(
      z.strictObject({ rect: z.strictObject({ top: unit, left: unit, width: unit, height: unit }), score: z.number() }),
    ),
  }),
]);

export const alephAlphaExplanationResponseSchema = z.strictObject({
  model_version: z.string(),
  explanations: z.array(z.strictObject({ target: z.string(), items: z.array(alephAlphaExplanationItemSchema) })),
});

export const alephAlphaQaResponseSchema = z.strictObject({
  model_version: z.string(),
  answers: z.array(z.strictObject({ answer: z.string(), score: z.number(), evidence: z.string() })),
});

export const alephAlphaSummarizationResponseSchema = z.strictObject({
  model_version: z.string(),
  summary: z.string(),
});

/** The request schema of each task endpoint, by path. */
export const ALEPH_ALPHA_TASK_REQUEST_SCHEMAS = {
  '/evaluate': alephAlphaEvaluationRequestSchema,
  '/explain': alephAlphaExplanationRequestSchema,
  '/qa': alephAlphaQaRequestSchema,
  '/summarize': alephAlphaSummarizationRequestSchema,
} as const;
