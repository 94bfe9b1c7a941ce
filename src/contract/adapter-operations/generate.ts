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
 * One SSE event, decoded by a profile — the same shape for every streamed operation (generation, chat). `ignore`
 * with `unexpected` is an event that is not the protocol's (a chat-completions chunk where completions were asked
 * for): the stream may still hold good events, but one that holds none ends in an UnexpectedAnswer (exit 4) quoting
 * the first such event, never in an empty success (src/call/stream.ts).
 */
export type StreamStepOf<Chunk> =
  | { type: 'chunk'; chunk: Chunk; wireBody: unknown }
  | { type: 'end' }
  | { type: 'error'; message: string; code?: string; wireBody: unknown }
  | { type: 'ignore'; unexpected?: string };

/** A generation stream's step. */
export type StreamStep = StreamStepOf<GenerateResult>;

/** How a provider words its error answers: the adapter's dialect, shared by all its operations. */
export interface ErrorDialect {
  /** Turns an error answer into the fields of ApiError (code, message, trace id). */
  parseError(status: number, bodyText: string, headers: Record<string, string>): ApiErrorDetails;
}

/**
 * The one shape of a call a provider maps (generation, chat): request in, wire request out; a whole answer, or a
 * stream of steps, back. Pure functions over plain objects: no terminal, no sockets. src/call/ sends what `build`
 * returns, reads the answer and hands it to `parse` or the `decoder`.
 */
export interface WireOperation<Req, Target, Chunk, Result> extends ErrorDialect {
  kind: string;
  /** Human name for messages ("watsonx.ai"). */
  displayName: string;
  /**
   * Canonical request → wire request. The request has been checked against the capabilities already. `extra`
   * (--extra) is merged into the body last. Throws UsageError for what the service would refuse.
   */
  build(request: Req, target: Target, profile: ResolvedProfile, extra?: Record<string, unknown>): HttpRequestSpec;
  /** Wire answer → canonical result; UnexpectedAnswer when it is not the protocol's shape. */
  parse(body: unknown, request: Req, target?: Target): Result;
  /** A fresh decoder per stream: some protocols need state across events. */
  decoder(request: Req, target?: Target): (event: SseEvent) => StreamStepOf<Chunk>;
}

/** Generation in one wire protocol: the call shape, with what only generation has. */
export interface GenerateOperation
  extends WireOperation<CanonicalRequest, GenerateTarget, GenerateResult, GenerateResult> {
  /** Default API version when the profile sets none. */
  defaultApiVersion?: string;
  capabilities: ProviderCapabilities;
  /** With `capabilities.streaming: 'profile'`: whether this profile's server streams (it says so in the profile). */
  profileStreams?(profile: ResolvedProfile): boolean;
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
