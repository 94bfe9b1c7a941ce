/**
 * `embed`: texts → vectors, in one canonical shape for every provider that has an embeddings endpoint. Each such
 * provider implements EmbedOperation in `profiles/<kind>/embed.ts` (pure wire mapping); the loader below maps a
 * provider kind to it, and run-embed.ts sends the batches. Cheap to import: types, small helpers, lazy modules.
 */
import type { ProviderKind, ResolvedProfile } from '../config/types.js';
import type { HttpRequestSpec } from '../http/types.js';

export const POOLINGS = ['mean', 'weighted_mean', 'max', 'last_token', 'abs_max'] as const;
export type Pooling = (typeof POOLINGS)[number];

export const REPRESENTATIONS = ['symmetric', 'document', 'query'] as const;
export type Representation = (typeof REPRESENTATIONS)[number];

/** The one size Aleph Alpha compresses semantic embeddings to. */
export const COMPRESSED_SIZE = 128;

/** Provider-specific settings, one per flag; a provider lists the ones it understands. */
export interface EmbedSettings {
  /** watsonx `parameters.truncate_input_tokens`. */
  truncate_input_tokens?: number;
  /** Aleph Alpha `/embed`. */
  layers?: number[];
  pooling?: Pooling[];
  tokens?: boolean;
  /** Aleph Alpha `/embed` and the semantic endpoints. */
  normalize?: boolean;
  /** Aleph Alpha: set → `/semantic_embed` (one input) or `/batch_semantic_embed` (several). */
  representation?: Representation;
  compress_to_size?: typeof COMPRESSED_SIZE;
  /** Aleph Alpha `?nice=true`. */
  nice?: boolean;
}

export type EmbedSetting = keyof EmbedSettings;

/** The flag behind each setting, for messages. */
export const SETTING_FLAGS: Record<EmbedSetting, string> = {
  truncate_input_tokens: '--truncate-input-tokens',
  layers: '--layers',
  pooling: '--pooling',
  tokens: '--tokens',
  normalize: '--normalize',
  representation: '--representation',
  compress_to_size: '--compress-to-size',
  nice: '--nice',
};

export interface EmbedRequest {
  /** watsonx model_id, Azure deployment, OpenAI-compatible model, Aleph Alpha model. */
  model: string;
  /** Every text, in order; never empty, no empty strings. */
  inputs: string[];
  settings: EmbedSettings;
  /** Aleph Alpha `--image`/`--prompt-json`: the one input as prompt items (then `inputs` holds its text, if any). */
  prompt?: unknown;
}

/** Aleph Alpha `/embed`: `layer_<N>` → pooling → vector, kept as the service names them. */
export type LayerEmbeddings = Record<string, Record<string, number[]>>;
export type Embedding = number[] | LayerEmbeddings;

export interface EmbeddingEntry {
  /** Position of the text among all inputs, from 0. */
  index: number;
  embedding: Embedding;
  /** Aleph Alpha `--tokens`: the text's tokens. */
  tokens?: string[];
}

/** `-o json`: keys in this order for every provider. */
export interface EmbedResult {
  model: string;
  embeddings: EmbeddingEntry[];
  input_token_count: number;
}

/** One answer, read: the embeddings of its batch, in the batch's order. */
export interface EmbedBatchAnswer {
  /** The model the service names, when it names one. */
  model?: string;
  embeddings: Array<{ embedding: Embedding; tokens?: string[] }>;
  inputTokenCount: number;
}

/** An array of numbers: what every provider calls a vector. */
export function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((x) => typeof x === 'number');
}

/** A 2xx answer without the fields `embed` needs; reported as the provider's error (exit 4). */
export class UnexpectedEmbedAnswer extends Error {}

/** How one provider embeds. Pure functions over plain objects: no terminal, no sockets. */
export interface EmbedOperation {
  /** The settings this provider understands; any other given setting is a usage error naming its flag. */
  settings: readonly EmbedSetting[];
  /** Combinations the service would reject (UsageError), checked before anything is read or sent. */
  checkSettings?(settings: EmbedSettings): void;
  /** Most inputs one request may carry. */
  maxBatch(request: EmbedRequest): number;
  /** Requests in flight at once (default 1: one after the other). */
  concurrency?(request: EmbedRequest): number;
  /** The request for one batch; `request` holds all inputs (the endpoint may depend on how many there are). */
  buildRequest(batch: readonly string[], request: EmbedRequest, profile: ResolvedProfile): HttpRequestSpec;
  /** Throws UnexpectedEmbedAnswer when the body lacks what is needed. */
  parseResponse(body: unknown, batch: readonly string[], request: EmbedRequest): EmbedBatchAnswer;
}

/** The kinds with an embeddings endpoint, in the order messages list them. */
export const EMBED_PROVIDERS: readonly ProviderKind[] = ['watsonx', 'azure-openai', 'openai', 'aleph-alpha'];

/** The provider's embeddings mapping, or undefined: it has no embeddings endpoint. */
export async function loadEmbedOperation(kind: ProviderKind): Promise<EmbedOperation | undefined> {
  switch (kind) {
    case 'watsonx':
      return (await import('../../profiles/watsonx/client/embed.js')).watsonxEmbed;
    case 'azure-openai':
      return (await import('../../profiles/azure-openai/client/embed.js')).azureOpenAiEmbed;
    case 'openai':
      return (await import('../../profiles/azure-openai/client/embed.js')).openAiEmbed;
    case 'aleph-alpha':
      return (await import('../../profiles/aleph-alpha/client/embed.js')).alephAlphaEmbed;
    case 'open-inference':
      return undefined;
  }
}

/** The kinds whose operation understands a setting (for "it works with …"). */
export async function providersWithSetting(setting: EmbedSetting): Promise<ProviderKind[]> {
  const out: ProviderKind[] = [];
  for (const kind of EMBED_PROVIDERS) {
    if ((await loadEmbedOperation(kind))?.settings.includes(setting)) out.push(kind);
  }
  return out;
}

/** Consecutive slices of at most `size` items; together they are `items`, in order. */
export function splitBatches<T>(items: readonly T[], size: number): T[][] {
  if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The answers of consecutive batches → one result: indexes run on across batches, token counts add up. */
export function combineAnswers(model: string, answers: readonly EmbedBatchAnswer[]): EmbedResult {
  const embeddings: EmbeddingEntry[] = [];
  let tokens = 0;
  for (const answer of answers) {
    for (const e of answer.embeddings) {
      embeddings.push({ index: embeddings.length, embedding: e.embedding, ...(e.tokens !== undefined ? { tokens: e.tokens } : {}) });
    }
    tokens += answer.inputTokenCount;
  }
  return { model: answers.find((a) => a.model !== undefined)?.model ?? model, embeddings, input_token_count: tokens };
}

/**
 * Text output: one line per input, in order. A vector prints as a JSON array; an Aleph Alpha layer/pooling result
 * holding exactly one vector (the default: one layer, one pooling) prints as that array, a larger one as its JSON
 * object, still on one line so line N stays the N-th text.
 */
export function embeddingLines(result: EmbedResult): string {
  return result.embeddings.map((e) => `${JSON.stringify(singleVector(e.embedding) ?? e.embedding)}\n`).join('');
}

/** The one vector of an embedding, or undefined for several layers or poolings. */
export function singleVector(embedding: Embedding): number[] | undefined {
  if (Array.isArray(embedding)) return embedding;
  const layers = Object.values(embedding);
  if (layers.length !== 1) return undefined;
  const poolings = Object.values(layers[0]!);
  return poolings.length === 1 ? poolings[0] : undefined;
}

/** Every given setting must be one the provider understands; then the provider's own combination rules. */
export async function checkEmbedSettings(op: EmbedOperation, provider: string, settings: EmbedSettings): Promise<void> {
  const { UsageError } = await import('../errors.js');
  for (const key of Object.keys(settings) as EmbedSetting[]) {
    if (settings[key] === undefined || op.settings.includes(key)) continue;
    const others = await providersWithSetting(key);
    throw new UsageError(`${SETTING_FLAGS[key]} is not supported by ${provider} for embed; it works with ${others.join(', ')}`);
  }
  op.checkSettings?.(settings);
}
