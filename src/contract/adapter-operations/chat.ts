/** `chat`: what an adapter implements to hold a conversation with the service. Types only. */
import type { ChatChunk, ChatParameterName, ChatRequest, ChatResult } from '../chat.js';
import type { ResolvedProfile } from '../profile.js';
import type { StreamStepOf, WireOperation } from './generate.js';

/** What a chat call targets: a model (`-m`), or a deployment (`--id-or-name`; a watsonx deployment, an Azure deployment). */
export interface ChatTarget {
  model?: string;
  deployment?: string;
  stream: boolean;
}

/**
 * The request features beyond the sampling parameters (tools, structured output): `native` travels on the wire as
 * the service documents it; `emulated` is done by textgen around a wire that lacks it (the answer checked locally);
 * `unsupported` is a usage error naming the provider (or dropped, with --ignore-unsupported, for what can be).
 */
export type ChatFeatureSupport = 'native' | 'emulated' | 'unsupported';

/** `--tools`, `--tool-choice`, `--[no-]parallel-tool-calls`, `--response-format json_object`, `--json-schema`. */
export type ChatFeature = 'tools' | 'tool_choice' | 'parallel_tool_calls' | 'json_object' | 'json_schema';

export interface ChatCapabilities {
  /** 'native': put on the wire; 'unsupported': a usage error naming it, or dropped with --ignore-unsupported. */
  parameters: Record<ChatParameterName, 'native' | 'unsupported'>;
  /**
   * Tools and response formats, per feature (docs/protocols/chat.md has the matrix and its sources). An operation
   * that does not say takes none of them: each is a usage error naming the provider.
   */
  features?: Record<ChatFeature, ChatFeatureSupport>;
  /** Most stop sequences the service takes. */
  maxStop?: number;
  /** Most alternatives per token (`top_logprobs`). */
  maxTopLogprobs?: number;
}

/** One SSE event of a chat stream, decoded. */
export type ChatStreamStep = StreamStepOf<ChatChunk>;

/** Why a profile cannot chat although its provider has a chat API (an Aleph Alpha server without the route). */
export interface ChatUnavailable {
  message: string;
  hint?: string;
}

/** Chat in one wire protocol: the call shape (src/call/), with what only chat has. */
export interface ChatOperation extends WireOperation<ChatRequest, ChatTarget, ChatChunk, ChatResult> {
  capabilities: ChatCapabilities;
  /** Undefined when the profile can chat; otherwise what to tell the user. */
  unavailable?(profile: ResolvedProfile): ChatUnavailable | undefined;
}
