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

export interface ChatCapabilities {
  /** 'native': put on the wire; 'unsupported': a usage error naming it, or dropped with --ignore-unsupported. */
  parameters: Record<ChatParameterName, 'native' | 'unsupported'>;
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
