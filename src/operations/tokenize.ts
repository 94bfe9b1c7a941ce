/**
 * `tokenize` and `detokenize`: what a provider's service offers for them. Providers with endpoints
 * (`profiles/<kind>/tokenize.ts`: watsonx, Aleph Alpha) implement TokenizeOperation; the others have none and
 * tokenize offline with a public encoding (src/tokenizers/), as does any profile with --local.
 */
import type { ProviderKind, ResolvedProfile } from '../config/types.js';
import type { HttpRequestSpec } from '../http/types.js';

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

/** A 2xx answer without the fields the command needs; reported as the provider's error (exit 4). */
export class UnexpectedAnswer extends Error {}

export interface TokenizeOperation {
  /** False when the service's answer carries no token ids (watsonx: texts and a count). */
  givesIds: boolean;
  buildTokenizeRequest(request: TokenizeRequest, profile: ResolvedProfile): HttpRequestSpec;
  /** Throws UnexpectedAnswer. */
  parseTokenizeResponse(body: unknown, request: TokenizeRequest): TokenizeResult;
  /** Absent when the service has no detokenize endpoint. */
  detokenize?: {
    buildRequest(request: DetokenizeRequest, profile: ResolvedProfile): HttpRequestSpec;
    /** Throws UnexpectedAnswer. */
    parseResponse(body: unknown, request: DetokenizeRequest): DetokenizeResult;
  };
  /** The request for the model's tokenizer.json (a byte-level BPE file), when the service hands it out: --local uses it. */
  tokenizerFileRequest?(model: string, profile: ResolvedProfile): HttpRequestSpec;
}

/** The provider's tokenize endpoints, or undefined: it has none, and tokenization runs offline. */
export async function loadTokenizeOperation(kind: ProviderKind): Promise<TokenizeOperation | undefined> {
  switch (kind) {
    case 'watsonx':
      return (await import('../../profiles/watsonx/client/tokenize.js')).watsonxTokenize;
    case 'aleph-alpha':
      return (await import('../../profiles/aleph-alpha/client/tokenize.js')).alephAlphaTokenize;
    case 'azure-openai':
    case 'openai':
    case 'open-inference':
      return undefined;
  }
}
