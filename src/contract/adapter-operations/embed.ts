/** `embed`: what an adapter implements to embed texts. Types only. */
import type { ResolvedProfile } from '../profile.js';
import type { HttpRequestSpec } from '../http.js';

export type Pooling = 'mean' | 'weighted_mean' | 'max' | 'last_token' | 'abs_max';
export type Representation = 'symmetric' | 'document' | 'query';

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
  /** The one size Aleph Alpha compresses semantic embeddings to (COMPRESSED_SIZE). */
  compress_to_size?: 128;
  /** Aleph Alpha `?nice=true`. */
  nice?: boolean;
}

export type EmbedSetting = keyof EmbedSettings;

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
  /** The length of every vector, when every text has one vector of the same length. */
  dimensions?: number;
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
  /** Throws UnexpectedAnswer when the body lacks what is needed. */
  parseResponse(body: unknown, batch: readonly string[], request: EmbedRequest): EmbedBatchAnswer;
}
