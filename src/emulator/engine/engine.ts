/**
 * The seam between the protocols of `textgen serve` and the model that answers them. Every route reaches its engine
 * through `ctx.server.engine` (src/emulator/core/router.ts), never by importing one: the deterministic engine
 * (deterministic.ts) is the default and the test engine; the llama engine (llama/) runs a GGUF model through
 * node-llama-cpp. docs/architecture.md ("The engine seam") says how to add another.
 */
import type { PoolingKind, VectorSpace } from './embedding.js';
import type { Tokenizer } from './tokenizer.js';
import type {
  EngineOptions,
  EngineRequest,
  Generation,
  GenerationSummary,
  JsonAnswer,
  JsonRequest,
  TurnPlan,
  TurnRequest,
} from './types.js';

/** `upstream`: another service answers through its profile (`serve --upstream`, src/gateway/). */
export type EngineKind = 'deterministic' | 'llama' | 'upstream';

/** What an embedding request asks for; the deterministic engine uses every field, a model only the text. */
export interface EmbeddingRequest {
  /** The input in this engine's tokens (routes tokenize, or take token ids from the client). */
  ids: readonly number[];
  /** The vector space the route names (model, layer, representation, size). */
  space: VectorSpace;
  pooling?: PoolingKind | undefined;
}

/** A vector, or why this engine's model gives none (the route words it in its protocol's error). */
export type EmbeddingResult = { ok: true; vector: number[] } | { ok: false; reason: string };

export interface Engine {
  readonly kind: EngineKind;
  /**
   * The one model this engine serves, under the name every route accepts and every listing shows; undefined for the
   * deterministic engine, which answers for every model name the protocols know.
   */
  readonly modelName: string | undefined;
  /** Prompt plus generated tokens may not exceed this many tokens. */
  readonly contextWindow: number;
  /** Embedding vector length when the model fixes it (a real model); undefined: the route's space decides. */
  readonly embeddingDimensions: number | undefined;
  /** The engine's own tokenizer; every route counts and lists tokens with it. */
  tokenizer(): Promise<Tokenizer>;
  /** A generation to iterate: its steps stream, its summary holds the whole answer. */
  startGeneration(request: EngineRequest, options?: EngineOptions): Promise<Generation>;
  embed(request: EmbeddingRequest): Promise<EmbeddingResult>;
  /**
   * A model engine's JSON under the grammar of a schema (llama: node-llama-cpp's JSON-schema grammar). Absent on the
   * deterministic engine, whose structured answers structured-answer.ts makes up from the schema itself.
   */
  generateJson?(request: JsonRequest, options?: EngineOptions): Promise<JsonAnswer>;
  /**
   * A chat turn with tools or a response format answered whole by the engine itself: an upstream service
   * (src/gateway/) decides the tool calls and writes the JSON, where the local engines follow structured-answer.ts's
   * rule. Absent on the local engines; planTurn calls it when present.
   */
  answerTurn?(request: TurnRequest, options: EngineOptions & { n?: number | undefined }): Promise<TurnPlan>;
  /**
   * A text's tokens as the model behind another service counts them (its tokenization API): an upstream engine
   * (src/gateway/) whose upstream has one. Undefined (or absent on the local engines): the route counts with
   * `tokenizer()`.
   */
  tokenizeText?(
    text: string,
    options: { tokens: boolean; signal?: AbortSignal | undefined },
  ): Promise<{ count: number; tokens?: string[] | undefined } | undefined>;
  /** Frees the model (native memory, threads); the server calls it on close. */
  close(): Promise<void>;
}

/** Runs a generation to the end and returns its summary. */
export async function runToEnd(
  engine: Engine,
  request: EngineRequest,
  options: EngineOptions = {},
): Promise<GenerationSummary> {
  const generation = await engine.startGeneration(request, options);
  if (generation.toEnd) return generation.toEnd();
  for await (const step of generation) void step;
  return generation.summary();
}
