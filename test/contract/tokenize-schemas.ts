/**
 * Tokenization wire shapes as zod schemas, written from the providers' documents, not from our code:
 * watsonx from docs/protocols/watsonx.md ("tokenize": `model_id`, `input`, `project_id`/`space_id`,
 * `parameters?{return_tokens}`; answer `{model_id, result: {token_count, tokens?}}`), Aleph Alpha from the 1.16
 * OpenAPI document (`TokenizationRequest`, `TokenizationResponse`, `DetokenizationRequest`, `DetokenizationResponse`;
 * test/unit/tokenize-contract.test.ts holds these to the field lists of aleph-alpha-contract.ts) and
 * docs/protocols/aleph-alpha.md (`GET /models/{model}/tokenizer`).
 * Requests and answers are strict: a field beyond the document's fails.
 */
import { expect } from 'vitest';
import { z } from 'zod';
import type { RecordedRequest } from '../../src/emulator/core/index.js';

export const watsonxTokenizationRequestSchema = z
  .strictObject({
    model_id: z.string().min(1),
    input: z.string().min(1),
    project_id: z.string().optional(),
    space_id: z.string().optional(),
    parameters: z.strictObject({ return_tokens: z.boolean().optional() }).optional(),
  })
  .refine((b) => (b.project_id === undefined) !== (b.space_id === undefined), 'exactly one of project_id and space_id');

export const watsonxTokenizationResponseSchema = z.strictObject({
  model_id: z.string(),
  result: z.strictObject({ token_count: z.int().min(0), tokens: z.array(z.string()).optional() }),
});

export const alephAlphaTokenizationRequestSchema = z.strictObject({
  model: z.string().min(1),
  prompt: z.string(),
  tokens: z.boolean(),
  token_ids: z.boolean(),
});

export const alephAlphaTokenizationResponseSchema = z.strictObject({
  tokens: z.array(z.string()).optional(),
  token_ids: z.array(z.int()).optional(),
});

export const alephAlphaDetokenizationRequestSchema = z.strictObject({
  model: z.string().min(1),
  token_ids: z.array(z.int()),
});

export const alephAlphaDetokenizationResponseSchema = z.strictObject({ result: z.string() });

const WATSONX_TOKENIZE = '/ml/v1/text/tokenization';
const AA_TOKENIZER_FILE = /^\/models\/[^/]+\/tokenizer$/;

function expectParses(schema: z.ZodType, value: unknown, where: string): void {
  const parsed = schema.safeParse(value);
  expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
}

/** Every tokenization request a test made, against its provider's contract; other paths are not this file's. */
export function expectValidTokenizeWire(requests: readonly RecordedRequest[]): void {
  for (const r of requests) {
    const where = `${r.method} ${r.path}`;
    if (r.path === WATSONX_TOKENIZE) {
      expect(r.method, where).toBe('POST');
      expect(r.query.version, `${where}: version=`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(r.headers['content-type'], where).toMatch(/^application\/json/);
      expectParses(watsonxTokenizationRequestSchema, r.json, where);
    } else if (r.path === '/tokenize') {
      expect(r.method, where).toBe('POST');
      expectParses(alephAlphaTokenizationRequestSchema, r.json, where);
    } else if (r.path === '/detokenize') {
      expect(r.method, where).toBe('POST');
      expectParses(alephAlphaDetokenizationRequestSchema, r.json, where);
    } else if (AA_TOKENIZER_FILE.test(r.path)) {
      expect(r.method, where).toBe('GET');
      expect(r.body, where).toBe('');
    }
  }
}
