/**
 * Embeddings in the OpenAI wire format (docs/protocols/azure-openai.md): Azure's
 * `POST {url}/openai/deployments/{deployment}/embeddings?api-version=` (the deployment picks the model) and the
 * OpenAI-compatible `POST {url}/v1/embeddings` with the model in the body. `input` is always an array of strings,
 * at most 2048 per request. The answer: `{object: "list", data: [{index, object, embedding}], model, usage}`.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { isVector } from '../../../src/contract/embed-settings.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type { EmbedBatchAnswer, EmbedOperation, EmbedRequest } from '../../../src/contract/adapter.js';
import { AZURE_DEFAULT_API_VERSION } from './request.js';
import { pathSegment } from '../../common/path-segment.js';
import { azureUsesV1, azureV1Url } from './azure-v1.js';

/** `input` holds at most this many strings (the OpenAPI document's maxItems). */
export const MAX_EMBED_INPUTS = 2048;

const HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

export function buildAzureEmbedRequest(
  batch: readonly string[],
  request: EmbedRequest,
  profile: ResolvedProfile,
): HttpRequestSpec {
  if (azureUsesV1(profile))
    return {
      method: 'POST',
      url: azureV1Url(profile, '/embeddings'),
      headers: { ...HEADERS },
      body: JSON.stringify({ model: request.model, input: [...batch] }),
    };
  // Users paste the endpoint with or without Azure's `/openai` segment; either way it appears once.
  const base = profile.url.replace(/\/+$/, '').replace(/\/openai$/, '');
  const version = profile.apiVersion ?? AZURE_DEFAULT_API_VERSION;
  return {
    method: 'POST',
    url: `${base}/openai/deployments/${pathSegment(request.model, 'deployment')}/embeddings?api-version=${encodeURIComponent(version)}`,
    headers: { ...HEADERS },
    body: JSON.stringify({ input: [...batch] }),
  };
}

export function buildOpenAiEmbedRequest(
  batch: readonly string[],
  request: EmbedRequest,
  profile: ResolvedProfile,
): HttpRequestSpec {
  // Servers document their base URL both as `http://host:port` and as `http://host:port/v1`.
  const base = profile.url.replace(/\/+$/, '');
  const url = /\/v1$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
  return {
    method: 'POST',
    url,
    headers: { ...HEADERS },
    body: JSON.stringify({ model: request.model, input: [...batch] }),
  };
}

/**
 * A base64 embedding (the little-endian float32 bytes) as numbers. textgen asks for floats, but servers that default
 * to base64, as the openai SDK's requests do, answer it anyway; undefined when the text is not such a vector.
 */
export function decodeBase64Vector(text: string): number[] | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
  const out = new Array<number>(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out.every(Number.isFinite) ? out : undefined;
}

/** `data` comes back with an `index` per item; the order of the array itself is not promised. */
export function parseOpenAiEmbedResponse(body: unknown, batch: readonly string[]): EmbedBatchAnswer {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new UnexpectedAnswer('the answer has no "data" array');
  const slots: Array<number[] | undefined> = new Array<number[] | undefined>(batch.length);
  data.forEach((item, i) => {
    const { index, embedding: given } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    const embedding = typeof given === 'string' ? decodeBase64Vector(given) : given;
    const at = typeof index === 'number' ? index : i;
    if (!Number.isInteger(at) || at < 0 || at >= batch.length)
      throw new UnexpectedAnswer(`data[${i}] has index ${JSON.stringify(index)} for ${batch.length} inputs`);
    if (!isVector(embedding))
      throw new UnexpectedAnswer(`data[${i}] has no "embedding" (an array of numbers, or base64)`);
    if (slots[at] !== undefined) throw new UnexpectedAnswer(`index ${at} appears twice in data`);
    slots[at] = embedding;
  });
  const missing = slots.indexOf(undefined);
  if (data.length !== batch.length || missing >= 0) {
    throw new UnexpectedAnswer(`data holds ${data.length} embeddings for ${batch.length} inputs`);
  }
  const b = body as { model?: unknown; usage?: { prompt_tokens?: unknown } };
  const tokens = b.usage?.prompt_tokens;
  return {
    ...(typeof b.model === 'string' && b.model !== '' ? { model: b.model } : {}),
    embeddings: (slots as number[][]).map((embedding) => ({ embedding })),
    inputTokenCount: typeof tokens === 'number' ? tokens : 0,
  };
}

export const azureOpenAiEmbed: EmbedOperation = {
  settings: [],
  maxBatch: () => MAX_EMBED_INPUTS,
  buildRequest: buildAzureEmbedRequest,
  parseResponse: parseOpenAiEmbedResponse,
};

export const openAiEmbed: EmbedOperation = {
  settings: [],
  maxBatch: () => MAX_EMBED_INPUTS,
  buildRequest: buildOpenAiEmbedRequest,
  parseResponse: parseOpenAiEmbedResponse,
};
