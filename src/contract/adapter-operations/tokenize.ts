/**
 * `tokenize` and `detokenize`: what an adapter whose service has those endpoints implements. Adapters without one
 * leave it out, and the commands tokenize offline with a public encoding (src/tokenizers/).
 */
import type { ResolvedProfile } from '../profile.js';
import type { HttpRequestSpec } from '../http.js';

export interface TokenizeRequest {
  model: string;
  text: string;
  /** The token texts are wanted in the result. */
  tokens: boolean;
  /** The token ids are wanted in the result. */
  ids: boolean;
}

/** `-o json`: keys in this order; `tokens` and `ids` only when asked for. */
export interface TokenizeResult {
  model?: string;
  /** The public encoding, when one was used offline. */
  encoding?: string;
  token_count: number;
  tokens?: string[];
  ids?: number[];
}

export interface DetokenizeRequest {
  model: string;
  ids: number[];
}

export interface DetokenizeResult {
  model?: string;
  encoding?: string;
  text: string;
}

export interface TokenizeOperation {
  /** False when the service's answer carries no token ids (watsonx: texts and a count). */
  givesIds: boolean;
  buildTokenizeRequest(request: TokenizeRequest, profile: ResolvedProfile): HttpRequestSpec;
  /** Throws UnexpectedAnswer (src/contract/errors.ts). */
  parseTokenizeResponse(body: unknown, request: TokenizeRequest): TokenizeResult;
  /** Absent when the service has no detokenize endpoint. */
  detokenize?: {
    buildRequest(request: DetokenizeRequest, profile: ResolvedProfile): HttpRequestSpec;
    /** Throws UnexpectedAnswer (src/contract/errors.ts). */
    parseResponse(body: unknown, request: DetokenizeRequest): DetokenizeResult;
  };
  /** The request for the model's tokenizer.json (a byte-level BPE file), when the service hands it out: --local uses it. */
  tokenizerFileRequest?(model: string, profile: ResolvedProfile): HttpRequestSpec;
}
