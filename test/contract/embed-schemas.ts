/**
 * Embedding wire shapes as zod schemas, written from the providers' documents — not from our code:
 * - watsonx `POST /ml/v1/text/embeddings` from docs/protocols/watsonx.md (`model_id`, `inputs` ≤ 1000, project or
 *   space, `parameters{truncate_input_tokens, return_options{input_text}}`) and the service's EmbeddingsResponse
 *   (`model_id`, `results[{embedding, input?}]`, `created_at`, `input_token_count`);
 * - Aleph Alpha `EmbeddingRequest`/`EmbeddingResponse`, `SemanticEmbeddingRequest`/`…Response` and
 *   `BatchSemanticEmbeddingRequest`/`…Response` from the 1.16.1 OpenAPI document (aleph-alpha-contract.ts), with the
 *   limits of docs/protocols/aleph-alpha.md. test/unit/embed-contract.test.ts holds these to the document's field lists.
 *
 * Requests are strict (an unknown field fails). Deviations from the AA document, each on purpose:
 * - `SemanticEmbeddingResponse.embedding` is declared `items: type: integer`, but its description ("a list of
 *   floats") and the service's answers are floats: numbers here.
 * - `pooling` items are the five operations the description lists; `compress_to_size` is `enum: [128]` as declared.
 * - `prompts` holds at most 100 prompts (the wire-facts page's limit, which the document does not state).
 * - The document's responses list no required fields; the ones every answer carries are required here.
 */
import { z } from 'zod';
import { alephAlphaHostingSchema, alephAlphaPromptSchema } from './aleph-alpha-schemas.js';

// ---- watsonx -----------------------------------------------------------------------------------

export const watsonxEmbeddingsRequestSchema = z
  .strictObject({
    inputs: z.array(z.string().min(1)).min(1).max(1000),
    model_id: z.string().min(1),
    project_id: z.string().optional(),
    space_id: z.string().optional(),
    parameters: z
      .strictObject({
        truncate_input_tokens: z.int().min(0).optional(),
        return_options: z.strictObject({ input_text: z.boolean().optional() }).optional(),
      })
      .optional(),
  })
  .refine((b) => (b.project_id === undefined) !== (b.space_id === undefined), {
    message: 'exactly one of project_id, space_id',
  });

export const watsonxEmbeddingsResponseSchema = z.strictObject({
  model_id: z.string().min(1),
  results: z.array(z.strictObject({ embedding: z.array(z.number()).min(1), input: z.string().optional() })).min(1),
  created_at: z.iso.datetime(),
  input_token_count: z.int().min(0),
});

// ---- Aleph Alpha -------------------------------------------------------------------------------

const pooling = z.enum(['mean', 'weighted_mean', 'max', 'last_token', 'abs_max']);
const representation = z.enum(['symmetric', 'document', 'query']);
const vector = z.array(z.number()).min(1);

/** The fields the three embedding requests share besides their prompt(s). */
const controls = {
  hosting: alephAlphaHostingSchema.optional(),
  normalize: z.boolean().optional(),
  contextual_control_threshold: z.number().nullable().optional(),
  control_log_additive: z.boolean().optional(),
};

/** `EmbeddingRequest` (required: model, prompt). */
export const alephAlphaEmbedRequestSchema = z.strictObject({
  model: z.string().min(1),
  prompt: alephAlphaPromptSchema,
  layers: z.array(z.int()).optional(),
  tokens: z.boolean().nullable().optional(),
  pooling: z.array(pooling).optional(),
  type: z.string().nullable().optional(),
  ...controls,
});

/** `SemanticEmbeddingRequest` (required: prompt, representation). */
export const alephAlphaSemanticEmbedRequestSchema = z.strictObject({
  model: z.string().min(1).optional(),
  prompt: alephAlphaPromptSchema,
  representation,
  compress_to_size: z.literal(128).nullable().optional(),
  ...controls,
});

/** `BatchSemanticEmbeddingRequest` (required: prompts, representation). */
export const alephAlphaBatchSemanticEmbedRequestSchema = z.strictObject({
  model: z.string().min(1).optional(),
  prompts: z.array(alephAlphaPromptSchema).min(1).max(100),
  representation,
  compress_to_size: z.literal(128).nullable().optional(),
  ...controls,
});

/** `EmbeddingResponse`: `layer_<N>` (N resolved, never negative) → pooling → vector. */
export const alephAlphaEmbedResponseSchema = z.strictObject({
  model_version: z.string(),
  embeddings: z.record(z.string().regex(/^layer_\d+$/), z.partialRecord(pooling, vector)).nullable(),
  tokens: z.array(z.string()).nullable(),
  num_tokens_prompt_total: z.int().min(0),
});

export const alephAlphaSemanticEmbedResponseSchema = z.strictObject({
  model_version: z.string(),
  embedding: vector,
  num_tokens_prompt_total: z.int().min(0),
});

export const alephAlphaBatchSemanticEmbedResponseSchema = z.strictObject({
  model_version: z.string(),
  embeddings: z.array(vector),
  num_tokens_prompt_total: z.int().min(0),
});
