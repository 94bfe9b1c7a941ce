/**
 * Reranking on OpenAI-compatible servers that offer it (vLLM, llama.cpp's server, the Jina/Cohere shape TEI's
 * router also answers): `POST {url}/v1/rerank` with `{model, query, documents, top_n?}` → `{results: [{index,
 * relevance_score}], model?, usage?}`. OpenAI itself and Azure OpenAI have no such endpoint. Some servers answer
 * a bare array or write `score`: both are read.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type { RerankAnswer, RerankOperation, RerankRequest } from '../../../src/contract/adapter.js';
import { isRecord } from '../../../src/contract/wire-fields.js';

/** No server documents a limit; vLLM and llama.cpp take what fits in their batch. */
export const OPENAI_MAX_RERANK_INPUTS = 1000;

export function buildOpenAiRerankRequest(request: RerankRequest, profile: ResolvedProfile): HttpRequestSpec {
  // Servers document their base URL both as `http://host:port` and as `http://host:port/v1`.
  const base = profile.url.replace(/\/+$/, '');
  const url = /\/v1$/.test(base) ? `${base}/rerank` : `${base}/v1/rerank`;
  return {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      model: request.model,
      query: request.query,
      documents: [...request.documents],
      ...(request.topN !== undefined ? { top_n: request.topN } : {}),
    }),
  };
}

export function parseOpenAiRerankResponse(body: unknown, request: RerankRequest): RerankAnswer {
  const results = Array.isArray(body) ? body : isRecord(body) ? body.results : undefined;
  if (!Array.isArray(results)) throw new UnexpectedAnswer('the answer has no "results" array');
  const scores = results.map((r, i) => {
    const index = isRecord(r) ? r.index : undefined;
    const score = isRecord(r) ? (r.relevance_score ?? r.score) : undefined;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= request.documents.length)
      throw new UnexpectedAnswer(
        `results[${i}] has index ${JSON.stringify(index)} for ${request.documents.length} documents`,
      );
    if (typeof score !== 'number' || !Number.isFinite(score))
      throw new UnexpectedAnswer(`results[${i}] has no "relevance_score" (a number)`);
    return { index, score };
  });
  const b = (isRecord(body) ? body : {}) as {
    model?: unknown;
    usage?: { total_tokens?: unknown; prompt_tokens?: unknown };
  };
  const tokens = b.usage?.total_tokens ?? b.usage?.prompt_tokens;
  return {
    ...(typeof b.model === 'string' && b.model !== '' ? { model: b.model } : {}),
    scores,
    ...(typeof tokens === 'number' ? { inputTokenCount: tokens } : {}),
  };
}

export const openAiRerank: RerankOperation = {
  maxInputs: OPENAI_MAX_RERANK_INPUTS,
  buildRequest: buildOpenAiRerankRequest,
  parseResponse: parseOpenAiRerankResponse,
};
