/**
 * watsonx embeddings: `POST /ml/v1/text/embeddings?version=` with `model_id`, `inputs` (at most 1000 per request),
 * the profile's project or space, and `parameters.truncate_input_tokens` (docs/protocols/watsonx.md). The answer:
 * `{model_id, results: [{embedding}], created_at, input_token_count}`.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { isVector } from '../../../src/contract/embed-settings.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type { EmbedBatchAnswer, EmbedOperation, EmbedRequest } from '../../../src/contract/adapter.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { watsonxScope } from './scope.js';

/** The service's limit on `inputs` per request. */
export const WATSONX_MAX_EMBED_INPUTS = 1000;

export function buildWatsonxEmbedRequest(
  batch: readonly string[],
  request: EmbedRequest,
  profile: ResolvedProfile,
): HttpRequestSpec {
  const body: Record<string, unknown> = { inputs: [...batch], model_id: request.model };
  Object.assign(body, watsonxScope(profile, 'embeddings'));
  const truncate = request.settings.truncate_input_tokens;
  if (truncate !== undefined) body.parameters = { truncate_input_tokens: truncate };
  const version = profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION;
  return {
    method: 'POST',
    url: `${profile.url}/ml/v1/text/embeddings?version=${encodeURIComponent(version)}`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  };
}

export function parseWatsonxEmbedResponse(body: unknown): EmbedBatchAnswer {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { results?: unknown }).results)) {
    throw new UnexpectedAnswer('the answer has no "results" array');
  }
  const b = body as { model_id?: unknown; results: unknown[]; input_token_count?: unknown };
  const embeddings = b.results.map((r, i) => {
    const embedding = (r as { embedding?: unknown } | null)?.embedding;
    if (!isVector(embedding)) throw new UnexpectedAnswer(`results[${i}] has no "embedding" (an array of numbers)`);
    return { embedding };
  });
  return {
    ...(typeof b.model_id === 'string' ? { model: b.model_id } : {}),
    embeddings,
    inputTokenCount: typeof b.input_token_count === 'number' ? b.input_token_count : 0,
  };
}

export const watsonxEmbed: EmbedOperation = {
  settings: ['truncate_input_tokens'],
  maxBatch: () => WATSONX_MAX_EMBED_INPUTS,
  buildRequest: buildWatsonxEmbedRequest,
  parseResponse: (body) => parseWatsonxEmbedResponse(body),
};
