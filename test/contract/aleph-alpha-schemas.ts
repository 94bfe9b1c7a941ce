/**
 * Aleph Alpha `/complete` wire shapes as zod schemas, written from the provider's own OpenAPI document (API 1.16.1:
 * `CompletionRequest`, `CompletionResponse`, `Hosting`, `Prompt`; recorded in aleph-alpha-contract.ts) and, for
 * streaming and errors, from docs/protocols/aleph-alpha.md — not from our code. test/unit/aleph-alpha-contract.test.ts
 * checks that these schemas name exactly the recorded fields, with their types, nullability and required list.
 *
 * Requests are strict (an unknown field fails). Deviations from the document, each on purpose:
 * - `stream` is added to the request: it is the 1.19+ streaming switch (docs/protocols/aleph-alpha.md), absent from
 *   1.16.
 * - `CompletionResponse.completions[].log_probs` is declared `type: object` in the document, but its description ("list
 *   with a dictionary for each generated token") and the service's answers make it an array of dictionaries.
 * - The document's response lists no required fields; the ones every answer of the service carries are required here,
 *   and our server's answers are checked strictly (no fields beyond the document's).
 */
import { z } from 'zod';

// ---- request ---------------------------------------------------------------------------------

/** `Hosting`: "aleph-alpha" or null. */
export const alephAlphaHostingSchema = z.enum(['aleph-alpha']).nullable();

const textControlSchema = z.strictObject({
  start: z.int(),
  length: z.int(),
  factor: z.number(),
  token_overlap: z.enum(['partial', 'complete']).optional(),
});
const imageControlSchema = z.strictObject({
  rect: z.strictObject({ left: z.number(), top: z.number(), width: z.number(), height: z.number() }),
  factor: z.number(),
  token_overlap: z.enum(['partial', 'complete']).optional(),
});
const tokenControlSchema = z.strictObject({ index: z.int(), factor: z.number() });

/** `MultimodalPrompt` items: TextPromptItem, ImagePromptItem, TokenIdsPromptItem. */
export const alephAlphaPromptItemSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), data: z.string(), controls: z.array(textControlSchema).optional() }),
  z.strictObject({
    type: z.literal('image'),
    data: z.string(),
    x: z.int().optional(),
    y: z.int().optional(),
    size: z.int().optional(),
    controls: z.array(imageControlSchema).optional(),
  }),
  z.strictObject({
    type: z.literal('token_ids'),
    data: z.array(z.int()),
    controls: z.array(tokenControlSchema).optional(),
  }),
]);

/** `Prompt`: a string or a multimodal array. */
export const alephAlphaPromptSchema = z.union([z.string(), z.array(alephAlphaPromptItemSchema)]);

const strings = z.array(z.string());

/** The 1.16 `CompletionRequest`, field by field (required: model, prompt, maximum_tokens), plus 1.19's `stream`. */
export const alephAlphaCompletionRequestSchema = z.strictObject({
  model: z.string().min(1),
  hosting: alephAlphaHostingSchema.optional(),
  prompt: alephAlphaPromptSchema,
  maximum_tokens: z.int(),
  minimum_tokens: z.int().optional(),
  echo: z.boolean().optional(),
  temperature: z.number().nullable().optional(),
  top_k: z.int().nullable().optional(),
  top_p: z.number().nullable().optional(),
  presence_penalty: z.number().nullable().optional(),
  frequency_penalty: z.number().nullable().optional(),
  sequence_penalty: z.number().optional(),
  sequence_penalty_min_length: z.int().optional(),
  repetition_penalties_include_prompt: z.boolean().nullable().optional(),
  repetition_penalties_include_completion: z.boolean().optional(),
  use_multiplicative_presence_penalty: z.boolean().nullable().optional(),
  use_multiplicative_frequency_penalty: z.boolean().optional(),
  use_multiplicative_sequence_penalty: z.boolean().optional(),
  penalty_bias: z.string().nullable().optional(),
  penalty_exceptions: strings.nullable().optional(),
  penalty_exceptions_include_stop_sequences: z.boolean().nullable().optional(),
  best_of: z.int().max(100).nullable().optional(),
  n: z.int().nullable().optional(),
  logit_bias: z.record(z.string(), z.number()).nullable().optional(),
  log_probs: z.int().nullable().optional(),
  stop_sequences: strings.nullable().optional(),
  tokens: z.boolean().nullable().optional(),
  raw_completion: z.boolean().optional(),
  disable_optimizations: z.boolean().nullable().optional(),
  completion_bias_inclusion: strings.optional(),
  completion_bias_inclusion_first_token_only: z.boolean().optional(),
  completion_bias_exclusion: strings.optional(),
  completion_bias_exclusion_first_token_only: z.boolean().optional(),
  contextual_control_threshold: z.number().nullable().optional(),
  control_log_additive: z.boolean().optional(),
  stream: z.boolean().optional(),
});

// ---- responses -------------------------------------------------------------------------------

/** One dictionary per token: token text → log probability (null for a probability of 0). */
const logProbsSchema = z.array(z.record(z.string(), z.number().max(0).nullable()));

/** `OptimizedPrompt`. */
const optimizedPromptSchema = z.array(
  z.union([
    z.strictObject({ type: z.literal('text'), data: z.string() }),
    z.strictObject({ type: z.literal('image'), data: z.string() }),
    z.strictObject({ type: z.literal('token_ids'), data: z.array(z.int()) }),
  ]),
);

export const alephAlphaCompletionSchema = z.strictObject({
  log_probs: logProbsSchema.nullable().optional(),
  completion: z.string(),
  raw_completion: z.string().nullable().optional(),
  completion_tokens: strings.optional(),
  finish_reason: z.string().nullable(),
});

/** The 1.16 `CompletionResponse`. */
export const alephAlphaCompletionResponseSchema = z.strictObject({
  model_version: z.string(),
  completions: z.array(alephAlphaCompletionSchema).min(1),
  optimized_prompt: optimizedPromptSchema.optional(),
  num_tokens_prompt_total: z.int().min(0),
  num_tokens_generated: z.int().min(0),
});

// ---- stream (1.19+) ----------------------------------------------------------------------------

export const alephAlphaStreamChunkSchema = z.strictObject({
  type: z.literal('stream_chunk'),
  index: z.int().min(0),
  completion: z.string(),
  model_version: z.string().optional(),
  raw_completion: z.string().optional(),
  log_probs: logProbsSchema.optional(),
  completion_tokens: strings.optional(),
});

export const alephAlphaStreamSummarySchema = z.strictObject({
  type: z.literal('stream_summary'),
  index: z.int().min(0),
  model_version: z.string(),
  finish_reason: z.string(),
});

export const alephAlphaCompletionSummarySchema = z.strictObject({
  type: z.literal('completion_summary'),
  num_tokens_prompt_total: z.int().min(0),
  num_tokens_generated: z.int().min(0),
  optimized_prompt: optimizedPromptSchema.optional(),
});

/** `{"error":"<message>","code":"<UPPER_SNAKE>"}`, the answer to failed requests and the in-stream error. */
export const alephAlphaErrorSchema = z.strictObject({
  error: z.string().min(1),
  code: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
});

/** The JSON of one `data:` line of a completion stream (the final `[DONE]` is not JSON and checked apart). */
export const alephAlphaStreamEventSchema = z.union([
  alephAlphaStreamChunkSchema,
  alephAlphaStreamSummarySchema,
  alephAlphaCompletionSummarySchema,
  alephAlphaErrorSchema,
]);

/** `GET /models_available`. */
export const alephAlphaModelsAvailableSchema = z.array(
  z.looseObject({ name: z.string().min(1), description: z.string(), hostings: strings }),
);
