import type { CanonicalRequest, GenerateResult } from '../src/canonical.js';
import type { ResolvedProfile } from '../src/config/types.js';
import type { ApiErrorDetails } from '../src/errors.js';
import type { HttpRequestSpec } from '../src/http/types.js';
import type { SseEvent } from '../src/http/sse-parser.js';

/** What a generation call targets: a deployment (cpd-cli) or a model (complete --model). */
export interface GenerateTarget {
  deployment?: string;
  model?: string;
  stream: boolean;
}

/** One SSE event, decoded by a profile. */
export type StreamStep =
  | { type: 'chunk'; chunk: GenerateResult; raw: unknown }
  | { type: 'end' }
  | { type: 'error'; message: string; code?: string; raw: unknown }
  | { type: 'ignore' };

/**
 * One wire protocol. Pure functions over plain objects: no terminal, no sockets. The command
 * layer sends what `buildGenerateRequest` returns through the HTTP client and hands the answer back.
 */
export interface ProviderProfile {
  kind: string;
  /** Human name for messages ("watsonx.ai"). */
  displayName: string;
  /** Default API version when the profile sets none. */
  defaultApiVersion?: string;
  buildGenerateRequest(request: CanonicalRequest, target: GenerateTarget, profile: ResolvedProfile, extra?: Record<string, unknown>): HttpRequestSpec;
  parseGenerateResponse(body: unknown): GenerateResult;
  /** A fresh decoder per stream: some protocols need state across events. */
  createStreamDecoder(): (event: SseEvent) => StreamStep;
  /** Turns an error answer into the fields of ApiError (code, message, trace id). */
  parseError(status: number, bodyText: string, headers: Record<string, string>): ApiErrorDetails;
}

/** Adds credentials to requests for one profile; owns the token exchange and the token cache. */
export interface Authenticator {
  /** Headers to add to a request (lower-case names); may perform a token exchange. */
  headers(signal?: AbortSignal): Promise<Record<string, string>>;
  /**
   * Called after a 401: drops the cached token. Returns true when a fresh credential can be
   * obtained (so one retry makes sense), false for static credentials (bearer, api key).
   */
  invalidate(): Promise<boolean>;
  /** For --dry-run: headers with shell placeholders instead of secrets; never does a request. */
  dryRunHeaders(): Record<string, string>;
}
