/**
 * Aleph Alpha embeddings (docs/protocols/aleph-alpha.md): without a representation `POST /embed`, one text per
 * request with `layers` (default [-1]) and `pooling` (default ["mean"]), answered as `layer_<N>` → pooling → vector;
 * with one, `POST /semantic_embed` for a single text and `POST /batch_semantic_embed` for several (at most 100
 * prompts per request). `?nice=true` and the profile's `hosting` as on every task endpoint.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { UsageError } from '../../../src/contract/errors.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { isVector } from '../../../src/contract/embed-settings.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type {
  EmbedBatchAnswer,
  EmbedOperation,
  EmbedRequest,
  EmbedSettings,
  LayerEmbeddings,
} from '../../../src/contract/adapter.js';
import { hostingField, taskRequest } from './task-request.js';

/** `/batch_semantic_embed` takes at most this many prompts. */
export const MAX_SEMANTIC_BATCH = 100;
/** `/embed` takes one prompt; a few run side by side so many texts do not wait on one another. */
export const EMBED_CONCURRENCY = 4;
export const DEFAULT_LAYERS: readonly number[] = [-1];
export const DEFAULT_POOLING: readonly string[] = ['mean'];

type Endpoint = 'embed' | 'semantic_embed' | 'batch_semantic_embed';

export function endpointFor(request: EmbedRequest): Endpoint {
  if (request.settings.representation === undefined) return 'embed';
  return request.inputs.length === 1 ? 'semantic_embed' : 'batch_semantic_embed';
}

/** What the semantic endpoints do not take, and what only they take. */
function checkSettings(s: EmbedSettings): void {
  if (s.representation === undefined) {
    if (s.compress_to_size !== undefined) {
      throw new UsageError(
        '--compress-to-size applies to semantic embeddings: give --representation symmetric, document or query with it',
      );
    }
    return;
  }
  const embedOnly = (['layers', 'pooling', 'tokens'] as const).filter((k) => s[k] !== undefined).map((k) => `--${k}`);
  if (embedOnly.length > 0) {
    throw new UsageError(
      `${embedOnly.join(', ')} cannot be used with --representation: semantic embeddings have no layers, pooling or tokens`,
      {
        hint: 'drop --representation to get layer embeddings from /embed',
      },
    );
  }
}

export function buildAlephAlphaEmbedRequest(
  batch: readonly string[],
  request: EmbedRequest,
  profile: ResolvedProfile,
): HttpRequestSpec {
  const s = request.settings;
  const endpoint = endpointFor(request);
  const body: Record<string, unknown> = { model: request.model, ...hostingField(profile) };
  if (endpoint === 'embed') {
    body.prompt = request.prompt ?? batch[0];
    body.layers = [...(s.layers ?? DEFAULT_LAYERS)];
    body.pooling = [...(s.pooling ?? DEFAULT_POOLING)];
    if (s.tokens !== undefined) body.tokens = s.tokens;
  } else {
    if (endpoint === 'semantic_embed') body.prompt = request.prompt ?? batch[0];
    else body.prompts = [...batch];
    body.representation = s.representation;
    if (s.compress_to_size !== undefined) body.compress_to_size = s.compress_to_size;
  }
  if (s.normalize !== undefined) body.normalize = s.normalize;
  return taskRequest(profile, endpoint, body, s.nice === true);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function layerEmbeddings(value: unknown): LayerEmbeddings {
  if (!isRecord(value) || Object.keys(value).length === 0)
    throw new UnexpectedAnswer('the answer has no "embeddings" object (layer → pooling → vector)');
  for (const [layer, poolings] of Object.entries(value)) {
    if (!isRecord(poolings)) throw new UnexpectedAnswer(`embeddings.${layer} is not an object of pooling results`);
    for (const [pooling, vector] of Object.entries(poolings)) {
      if (!isVector(vector)) throw new UnexpectedAnswer(`embeddings.${layer}.${pooling} is not an array of numbers`);
    }
  }
  return value as LayerEmbeddings;
}

function tokenCount(body: Record<string, unknown>): number {
  return typeof body.num_tokens_prompt_total === 'number' ? body.num_tokens_prompt_total : 0;
}

export function parseAlephAlphaEmbedResponse(
  body: unknown,
  batch: readonly string[],
  request: EmbedRequest,
): EmbedBatchAnswer {
  if (!isRecord(body)) throw new UnexpectedAnswer('the answer is not a JSON object');
  switch (endpointFor(request)) {
    case 'embed': {
      const tokens = body.tokens;
      const withTokens =
        request.settings.tokens === true && Array.isArray(tokens) && tokens.every((t) => typeof t === 'string');
      return {
        embeddings: [
          { embedding: layerEmbeddings(body.embeddings), ...(withTokens ? { tokens: tokens as string[] } : {}) },
        ],
        inputTokenCount: tokenCount(body),
      };
    }
    case 'semantic_embed':
      if (!isVector(body.embedding)) throw new UnexpectedAnswer('the answer has no "embedding" (an array of numbers)');
      return { embeddings: [{ embedding: body.embedding }], inputTokenCount: tokenCount(body) };
    case 'batch_semantic_embed': {
      const list = body.embeddings;
      if (!Array.isArray(list)) throw new UnexpectedAnswer('the answer has no "embeddings" array');
      if (list.length !== batch.length)
        throw new UnexpectedAnswer(`embeddings holds ${list.length} vectors for ${batch.length} prompts`);
      return {
        embeddings: list.map((v, i) => {
          if (!isVector(v)) throw new UnexpectedAnswer(`embeddings[${i}] is not an array of numbers`);
          return { embedding: v };
        }),
        inputTokenCount: tokenCount(body),
      };
    }
  }
}

export const alephAlphaEmbed: EmbedOperation = {
  settings: ['layers', 'pooling', 'tokens', 'normalize', 'representation', 'compress_to_size', 'nice'],
  checkSettings,
  maxBatch: (request) => (endpointFor(request) === 'embed' ? 1 : MAX_SEMANTIC_BATCH),
  concurrency: (request) => (endpointFor(request) === 'embed' ? EMBED_CONCURRENCY : 1),
  buildRequest: buildAlephAlphaEmbedRequest,
  parseResponse: parseAlephAlphaEmbedResponse,
};
