/**
 * `rerank`: what an adapter implements to order texts by how well they answer a query (watsonx
 * `/ml/v1/text/rerank`, the `/v1/rerank` of vLLM, llama.cpp's server and TEI). Types only.
 */
import type { ResolvedProfile } from '../profile.js';
import type { HttpRequestSpec } from '../http.js';

export interface RerankRequest {
  /** watsonx model_id, the OpenAI-compatible server's model. */
  model: string;
  query: string;
  /** The texts to score, in the user's order; never empty, no empty strings. */
  documents: string[];
  /** Keep only the best N (the service's top_n); absent: every text. */
  topN?: number;
  /** watsonx `parameters.truncate_input_tokens`. */
  truncateInputTokens?: number;
}

/** One answer, read: a score per text it ranked, by the text's position in `documents`. */
export interface RerankAnswer {
  /** The model the service names, when it names one. */
  model?: string;
  scores: Array<{ index: number; score: number }>;
  /** Tokens the service counted, when it says. */
  inputTokenCount?: number;
}

/** One ranked text of the canonical result. */
export interface RerankedText {
  /** 1 for the best. */
  rank: number;
  /** The text's position among the inputs, from 0. */
  index: number;
  score: number;
  text: string;
}

/** `rerank -o json`: keys in this order for every provider (docs/design.md §3), best first. */
export interface RerankResult {
  model: string;
  query: string;
  results: RerankedText[];
  input_token_count?: number;
}

/** How one provider reranks. Pure functions over plain objects: no terminal, no sockets. */
export interface RerankOperation {
  /** Most texts one request may carry. */
  maxInputs: number;
  buildRequest(request: RerankRequest, profile: ResolvedProfile): HttpRequestSpec;
  /** Throws UnexpectedAnswer when the body lacks what is needed. */
  parseResponse(body: unknown, request: RerankRequest): RerankAnswer;
}
