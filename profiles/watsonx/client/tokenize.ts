/**
 * watsonx tokenization: `POST /ml/v1/text/tokenization?version=` with `{model_id, input, project_id|space_id,
 * parameters?: {return_tokens}}` → `{model_id, result: {token_count, tokens?}}` (docs/protocols/watsonx.md). The answer
 * carries token texts and a count, never ids, and the service has no detokenize endpoint.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type { TokenizeOperation, TokenizeRequest, TokenizeResult } from '../../../src/contract/adapter.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { watsonxScope } from './scope.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function buildWatsonxTokenizeRequest(request: TokenizeRequest, profile: ResolvedProfile): HttpRequestSpec {
  const body: Record<string, unknown> = { model_id: request.model, input: request.text };
  Object.assign(body, watsonxScope(profile, 'tokenization'));
  if (request.tokens) body.parameters = { return_tokens: true };
  const version = profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION;
  return {
    method: 'POST',
    url: `${profile.url}/ml/v1/text/tokenization?version=${encodeURIComponent(version)}`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  };
}

export function parseWatsonxTokenizeResponse(body: unknown, request: TokenizeRequest): TokenizeResult {
  const result = isRecord(body) ? body.result : undefined;
  if (
    !isRecord(result) ||
    typeof result.token_count !== 'number' ||
    !Number.isInteger(result.token_count) ||
    result.token_count < 0
  ) {
    throw new UnexpectedAnswer('the answer has no "result.token_count"');
  }
  const out: TokenizeResult = {
    model: isRecord(body) && typeof body.model_id === 'string' ? body.model_id : request.model,
    token_count: result.token_count,
  };
  if (request.tokens) {
    if (!Array.isArray(result.tokens) || !result.tokens.every((t) => typeof t === 'string')) {
      throw new UnexpectedAnswer('the answer has no "result.tokens" list of strings');
    }
    out.tokens = result.tokens as string[];
  }
  return out;
}

export const watsonxTokenize: TokenizeOperation = {
  givesIds: false,
  buildTokenizeRequest: buildWatsonxTokenizeRequest,
  parseTokenizeResponse: parseWatsonxTokenizeResponse,
};
