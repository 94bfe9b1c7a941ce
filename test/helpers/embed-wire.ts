import { expect } from 'vitest';
import type { RecordedRequest } from '../../src/emulator/core/index.js';
import { embeddingsRequestSchema, schemaErrors } from '../contract/azure-embeddings-openapi.js';
import {
  alephAlphaBatchSemanticEmbedRequestSchema,
  alephAlphaEmbedRequestSchema,
  alephAlphaSemanticEmbedRequestSchema,
  watsonxEmbeddingsRequestSchema,
} from '../contract/embed-schemas.js';

const AZURE = /^\/openai\/deployments\/[^/]+\/embeddings$/;
const AA: Record<string, { safeParse(v: unknown): { success: boolean; error?: { issues: unknown } } }> = {
  '/embed': alephAlphaEmbedRequestSchema,
  '/semantic_embed': alephAlphaSemanticEmbedRequestSchema,
  '/batch_semantic_embed': alephAlphaBatchSemanticEmbedRequestSchema,
};

/** The embedding requests among those recorded, in order. */
export function embedRequests(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter(
    (r) =>
      r.path === '/ml/v1/text/embeddings' ||
      AZURE.test(r.path) ||
      r.path === '/v1/embeddings' ||
      Object.hasOwn(AA, r.path),
  );
}

/**
 * Every request a test made must be an embeddings request valid against its provider's contract: watsonx's from
 * docs/protocols/watsonx.md, Azure's OpenAPI document (both routes), Aleph Alpha's 1.16 schemas. Headers and query too.
 */
export function expectValidEmbedWire(requests: readonly RecordedRequest[]): void {
  for (const r of requests) {
    const where = `${r.method} ${r.path}`;
    expect(r.method, where).toBe('POST');
    expect(r.headers['content-type'], where).toMatch(/^application\/json/);
    expect(r.headers.accept, where).toBe('application/json');
    if (r.path === '/ml/v1/text/embeddings') {
      expect(r.query.version, `${where}: version=`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const parsed = watsonxEmbeddingsRequestSchema.safeParse(r.json);
      expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    } else if (AZURE.test(r.path) || r.path === '/v1/embeddings') {
      if (AZURE.test(r.path)) expect(r.query['api-version'], `${where}: api-version=`).toBeTruthy();
      else expect(typeof (r.json as { model?: unknown }).model, `${where}: model`).toBe('string');
      expect(schemaErrors(embeddingsRequestSchema(), r.json), where).toBe('');
    } else if (Object.hasOwn(AA, r.path)) {
      const parsed = AA[r.path]!.safeParse(r.json);
      expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error?.issues)}`).toBe(true);
    } else {
      throw new Error(`unexpected request ${where}`);
    }
  }
}
