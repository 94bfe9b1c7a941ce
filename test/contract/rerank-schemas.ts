/**
 * The OpenAI-compatible rerank API as vLLM (`/v1/rerank`), llama.cpp's server and TEI's router take it (the
 * Jina/Cohere shape): written from their documentation, not from our code. Requests are strict.
 */
import { z } from 'zod';

/** Body of POST /v1/rerank. */
export const openAiRerankRequestSchema = z.strictObject({
  model: z.string().min(1),
  query: z.string().min(1),
  documents: z.array(z.string()).min(1),
  top_n: z.int().min(1).optional(),
  return_documents: z.boolean().optional(),
});

/** Its answer: `results` best first, each with the document's position in `documents`. */
export const openAiRerankResponseSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string(),
  usage: z.looseObject({ total_tokens: z.int().min(0) }).optional(),
  results: z.array(
    z.strictObject({
      index: z.int().min(0),
      document: z.strictObject({ text: z.string() }).optional(),
      relevance_score: z.number(),
    }),
  ),
});
