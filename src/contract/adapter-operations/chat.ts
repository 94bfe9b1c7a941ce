/** `chat`: what an adapter implements to hold a conversation with the service. Types only. */
import type { ChatChunk, ChatParameterName, ChatRequest, ChatResult } from '../chat.js';
import type { ResolvedProfile } from '../profile.js';
import type { ApiErrorDetails } from '../errors.js';
import type { HttpRequestSpec } from '../http.js';
import type { SseEvent } from '../http.js';

/** What a chat call targets: a model (`-m`), or a deployment (`--id-or-name`; a watsonx deployment, an Azure deployment). */
export interface ChatTarget {
  model?: string;
  deployment?: string;
  stream: boolean;
}

export interface ChatCapabilities {
  /** 'native': put on the wire; 'unsupported': a usage error naming it, or dropped with --ignore-unsupported. */
  parameters: Record<ChatParameterName, 'native' | 'unsupported'>;
  /** Most stop sequences the service takes. */
  maxStop?: number;
  /** Most alternatives per token (`top_logprobs`). */
  maxTopLogprobs?: number;
}

/** One SSE event of a chat stream, decoded. */
export type ChatStreamStep =
  | { type: 'chunk'; chunk: ChatChunk; raw: unknown }
  | { type: 'end' }
  | { type: 'error'; message: string; code?: string; raw: unknown }
  | { type: 'ignore' };

/** Why a profile cannot chat although its provider has a chat API (an Aleph Alpha server without the route). */
export interface ChatUnavailable {
  message: string;
  hint?: string;
}

/** Chat in one wire protocol. Pure functions over plain objects: no terminal, no sockets. */
export interface ChatOperation {
  kind: string;
  /** Human name for messages ("watsonx.ai"). */
  displayName: string;
  capabilities: ChatCapabilities;
  /** Undefined when the profile can chat; otherwise what to tell the user. */
  unavailable?(profile: ResolvedProfile): ChatUnavailable | undefined;
  /**
   * Canonical conversation → wire request. The parameters have been checked against `capabilities` already.
   * `extra` (--extra) is merged into the body last. Throws UsageError for what the service would refuse (no
   * model, no space or project).
   */
  buildChatRequest(
    request: ChatRequest,
    target: ChatTarget,
    profile: ResolvedProfile,
    extra?: Record<string, unknown>,
  ): HttpRequestSpec;
  /** A whole answer → the canonical result; UnexpectedAnswer (src/contract/errors.ts) when it is not the protocol's shape. */
  parseChatResponse(body: unknown, request: ChatRequest): ChatResult;
  /** A fresh decoder per stream. */
  createChatStreamDecoder(request: ChatRequest): (event: SseEvent) => ChatStreamStep;
  /** The adapter's own error reading (the same as its generation's). */
  parseError(status: number, bodyText: string, headers: Record<string, string>): ApiErrorDetails;
}
