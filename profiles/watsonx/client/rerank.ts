/**
 * watsonx reranking: `POST /ml/v1/text/rerank?version=` with `{model_id, inputs: [{text}], query, project_id|space_id,
 * parameters?: {truncate_input_tokens, return_options: {top_n}}}` → `{model_id, results: [{index, score}],
 * created_at, input_token_count}` (docs/protocols/watsonx.md). The service takes at most 1000 inputs.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type { RerankAnswer, RerankOperation, RerankRequest } from '../../../src/contract/adapter.js';
import { isRecord } from '../../../src/contract/wire-fields.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { watsonxScope } from './scope.js';

export const WATSONX_MAX_RERANK_INPUTS = 1000;

export function buildWatsonxRerankRequest(request: RerankRequest, profile: ResolvedProfile): HttpRequestSpec {
  const body: Record<string, unknown> = {
    model_id: request.model,
    inputs: request.documents.map((text) => ({ text })),
    query: request.query,
    ...watsonxScope(profile, 'reranking'),
  };
  const parameters: Record<string, unknown> = {};
  if (request.truncateInputTokens !== undefined) parameters.truncate_input_tokens = request.truncateInputTokens;
  if (request.topN !== undefined) parameters.return_options = { top_n: request.topN };
  if (Object.keys(parameters).length > 0) body.parameters = parameters;
  const version = profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION;
  return {
    method: 'POST',
    url: `${profile.url}/ml/v1/text/rerank?version=${encodeURIComponent(version)}`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  };
}

export function parseWatsonxRerankResponse(body: unknown, request: RerankRequest): RerankAnswer {
  const results = isRecord(body) ? body.results : undefined;
  if (!Array.isArray(results)) throw new UnexpectedAnswer('the answer has no "results" array');
  const scores = results.map((r, i) => {
    const index = isRecord(r) ? r.index : undefined;
    const score = isRecord(r) ? r.score : undefined;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= request.documents.length)
      throw new UnexpectedAnswer(
        `results[${i}] has index ${JSON.stringify(index)} for ${request.documents.length} inputs`,
      );
    if (typeof score !== 'number' || !Number.isFinite(score))
      throw new UnexpectedAnswer(`results[${i}] has no "score" (a number)`);
    return { index, score };
  });
  const b = body as { model_id?: unknown; input_token_count?: unknown };
  return {
    ...(typeof b.model_id === 'string' ? { model: b.model_id } : {}),
    scores,
    ...(typeof b.input_token_count === 'number' ? { inputTokenCount: b.input_token_count } : {}),
  };
}

export const watsonxRerank: RerankOperation = {
  maxInputs: WATSONX_MAX_RERANK_INPUTS,
  buildRequest: buildWatsonxRerankRequest,
  parseResponse: parseWatsonxRerankResponse,
};
