/** Generation (`deployment text-generate`, `complete`) and authentication: what every adapter implements. Types only. */
import type { CanonicalParameters, CanonicalRequest, GenerateResult, ReturnOptions } from '../canonical.js';
import type { ResolvedProfile } from '../profile.js';
import type { ApiErrorDetails } from '../errors.js';
import type { HttpRequestSpec } from '../http.js';
import type { SseEvent } from '../http.js';

/** What a generation call targets: a deployment (cpd-cli) or a model (complete --model). */
export interface GenerateTarget {
  /** `deployment text-generate --id-or-name`: a watsonx deployment, an Azure deployment, a model name elsewhere. */
  deployment?: string;
  /** `complete --model` (or the profile's defaults.model). */
  model?: string;
  /** Open Inference `--model-version` (also written `model:version`). */
  modelVersion?: string;
  stream: boolean;
}

/**
 * How a provider carries one canonical parameter (docs/design.md §3):
 * - native: the profile maps it onto the wire;
 * - client: the CLI does it itself (time_limit as a client deadline, prompt_variables as `{{var}}` fill) and the
 *   profile never sees it;
 * - extra: sent as an extra parameter key only when the user's profile lists it in `server_parameters`;
 * - unsupported: a usage error naming parameter and provider, or a warning with --ignore-unsupported.
 */
export type Support = 'native' | 'client' | 'extra' | 'unsupported';

export interface ProviderCapabilities {
  parameters: Record<keyof CanonicalParameters, Support>;
  returnOptions: Record<keyof ReturnOptions, Support>;
  moderations: Support;
  /** Several completions per prompt (`complete -n`). */
  choices: Support;
  /** Most stop sequences the service takes. */
  maxStopSequences?: number;
  /** 'native': the protocol streams; 'profile': only when the user's profile says `streaming: true`. */
  streaming: 'native' | 'profile';
  /**
   * The stream's last event says why each completion stopped (watsonx stop_reason, OpenAI finish_reason, Aleph
   * Alpha stream_summary). Then a stream that ends cleanly without it was cut off, not finished.
   */
  statesStopReason: boolean;
  /** Overrides of `parameters` when the target is a model rather than a deployment (watsonx prompt_variables). */
  forModels?: Partial<Record<keyof CanonicalParameters, Support>>;
}

/**
 * One SSE event, decoded by a profile. `ignore` with `unexpected` is an event that is not the protocol's (a
 * chat-completions chunk where completions were asked for): the stream may still hold good events, but one that
 * holds none ends in an UnexpectedAnswer (exit 4) quoting the first such event, never in an empty success.
 */
export type StreamStep =
  | { type: 'chunk'; chunk: GenerateResult; raw: unknown }
  | { type: 'end' }
  | { type: 'error'; message: string; code?: string; raw: unknown }
  | { type: 'ignore'; unexpected?: string };

/**
 * Generation in one wire protocol. Pure functions over plain objects: no terminal, no sockets. The command
 * layer sends what `buildGenerateRequest` returns through the HTTP client and hands the answer back.
 */
export interface GenerateOperation {
  kind: string;
  /** Human name for messages ("watsonx.ai"). */
  displayName: string;
  /** Default API version when the profile sets none. */
  defaultApiVersion?: string;
  capabilities: ProviderCapabilities;
  /**
   * Canonical request → wire request. The request has been checked against `capabilities` already: client-side
   * and unsupported parameters are gone, `extra` ones are present only when the profile allows them. Throws
   * UsageError for provider limits (e.g. Azure best_of with streaming).
   */
  buildGenerateRequest(
    request: CanonicalRequest,
    target: GenerateTarget,
    profile: ResolvedProfile,
    extra?: Record<string, unknown>,
  ): HttpRequestSpec;
  /** Wire answer → canonical result (stop reasons and token counts normalised). `request`/`target` are the ones sent. */
  parseGenerateResponse(body: unknown, request: CanonicalRequest, target?: GenerateTarget): GenerateResult;
  /** A fresh decoder per stream: some protocols need state across events. */
  createStreamDecoder(request: CanonicalRequest, target?: GenerateTarget): (event: SseEvent) => StreamStep;
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
