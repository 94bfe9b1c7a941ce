/**
 * Aleph Alpha tokenization (docs/protocols/aleph-alpha.md): `POST /tokenize` `{model, prompt, tokens, token_ids}` →
 * `{tokens?, token_ids?}`, `POST /detokenize` `{model, token_ids}` → `{result}`, and `GET /models/{model}/tokenizer`,
 * the model's Hugging Face tokenizer.json, which `--local` fetches once and then tokenizes with offline.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type {
  DetokenizeRequest,
  DetokenizeResult,
  TokenizeOperation,
  TokenizeRequest,
  TokenizeResult,
} from '../../../src/contract/adapter.js';
import { pathSegment } from '../../common/path-segment.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isIdList(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((id) => typeof id === 'number' && Number.isInteger(id));
}

function isTextList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((t) => typeof t === 'string');
}

export function buildAlephAlphaTokenizeRequest(request: TokenizeRequest, profile: ResolvedProfile): HttpRequestSpec {
  // The answer has no count of its own: a bare count is the length of the id list.
  const body = {
    model: request.model,
    prompt: request.text,
    tokens: request.tokens,
    token_ids: request.ids || !request.tokens,
  };
  return { method: 'POST', url: `${profile.url}/tokenize`, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}

export function parseAlephAlphaTokenizeResponse(body: unknown, request: TokenizeRequest): TokenizeResult {
  if (!isRecord(body)) throw new UnexpectedAnswer('the answer is not a JSON object');
  const wantIds = request.ids || !request.tokens;
  if (wantIds && !isIdList(body.token_ids))
    throw new UnexpectedAnswer('the answer has no "token_ids" list of integers');
  if (request.tokens && !isTextList(body.tokens))
    throw new UnexpectedAnswer('the answer has no "tokens" list of strings');
  const ids = body.token_ids as number[] | undefined;
  const tokens = body.tokens as string[] | undefined;
  const out: TokenizeResult = { model: request.model, token_count: (ids ?? tokens ?? []).length };
  if (request.tokens) out.tokens = tokens;
  if (request.ids) out.ids = ids;
  return out;
}

export function buildAlephAlphaDetokenizeRequest(
  request: DetokenizeRequest,
  profile: ResolvedProfile,
): HttpRequestSpec {
  const body = { model: request.model, token_ids: request.ids };
  return { method: 'POST', url: `${profile.url}/detokenize`, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}

export function parseAlephAlphaDetokenizeResponse(body: unknown, request: DetokenizeRequest): DetokenizeResult {
  if (!isRecord(body) || typeof body.result !== 'string')
    throw new UnexpectedAnswer('the answer has no "result" string');
  return { model: request.model, text: body.result };
}

export function buildAlephAlphaTokenizerFileRequest(model: string, profile: ResolvedProfile): HttpRequestSpec {
  return {
    method: 'GET',
    url: `${profile.url}/models/${pathSegment(model, 'model')}/tokenizer`,
    headers: { accept: 'application/json' },
  };
}

export const alephAlphaTokenize: TokenizeOperation = {
  givesIds: true,
  buildTokenizeRequest: buildAlephAlphaTokenizeRequest,
  parseTokenizeResponse: parseAlephAlphaTokenizeResponse,
  detokenize: { buildRequest: buildAlephAlphaDetokenizeRequest, parseResponse: parseAlephAlphaDetokenizeResponse },
  tokenizerFileRequest: buildAlephAlphaTokenizerFileRequest,
};
