/**
 * The canonical chat request, result and stream chunk: one vocabulary for every provider's chat API, so that
 * `chat -o json` has the same shape whatever the wire protocol (docs/protocols/chat.md). The chat APIs of all four
 * services descend from OpenAI's chat completions, so the field names (`max_tokens`, `finish_reason`, `usage`) are
 * theirs. Types only: anything may import this file.
 */
import type { ServiceWarning } from './canonical.js';

export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** The parameters `chat` carries; each provider's capabilities say which of them its wire takes. */
export interface ChatParameters {
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  seed?: number;
  /** Answers per request. */
  n?: number;
  logprobs?: boolean;
  /** Alternatives per token; implies logprobs. */
  top_logprobs?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  /** Milliseconds (watsonx). */
  time_limit?: number;
}

export type ChatParameterName = keyof ChatParameters;

export interface ChatRequest {
  messages: ChatMessage[];
  parameters: ChatParameters;
}

/**
 * Why an answer ended: OpenAI's `finish_reason` words, which the services share (`stop`, `length`, `content_filter`,
 * `tool_calls`; watsonx adds `time_limit`, `cancelled`, `error`). `not_finished` while a stream is still going;
 * unknown words are kept as they came.
 */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'content_filter'
  | 'tool_calls'
  | 'time_limit'
  | 'cancelled'
  | 'error'
  | 'not_finished'
  | (string & {});

export interface ChatTopLogprob {
  token: string;
  logprob: number;
}

export interface ChatTokenLogprob {
  token: string;
  logprob: number;
  top_logprobs?: ChatTopLogprob[];
}

export interface ChatChoice {
  index: number;
  message: { role: 'assistant'; content: string };
  finish_reason: FinishReason;
  /** Present when log-probabilities were asked for and the service sent them. */
  logprobs?: ChatTokenLogprob[];
}

export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

/** `chat -o json`: keys in this order for every provider. */
export interface ChatResult {
  /** The provider kind that answered (`watsonx`, `azure-openai`, …). */
  provider: string;
  /** The service's id of this completion. */
  id?: string;
  model?: string;
  created_at?: string;
  choices: ChatChoice[];
  usage?: ChatUsage;
  warnings?: ServiceWarning[];
}

/** One streamed piece of one or more answers. */
export interface ChatChunkChoice {
  index: number;
  /** The text added by this chunk (may be empty). */
  content: string;
  /** Set on the chunk that ends this answer. */
  finish_reason?: FinishReason;
  logprobs?: ChatTokenLogprob[];
}

/** `chat -o jsonl`: one of these per line while the answer streams. */
export interface ChatChunk {
  provider: string;
  id?: string;
  model?: string;
  created_at?: string;
  choices: ChatChunkChoice[];
  usage?: ChatUsage;
  warnings?: ServiceWarning[];
}
